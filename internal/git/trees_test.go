package git

import (
	"bytes"
	"context"
	"testing"
)

// TestReadTrees reads directories at several depths, with awkward names,
// and directories that are absent or files: each tree's body is the one
// cat-file gives for "tree:path", and nothing is given for the others.
func TestReadTrees(t *testing.T) {
	r, dir := newRepo(t)
	files := awkwardFiles("x\n")
	files["a/b/c/deep.txt"] = "deep\n"
	files["a/b/side.txt"] = "side\n"
	files["a/file"] = "file\n"
	root := writeFiles(t, r, dir, files)
	dirs := []string{"", "a", "a/b", "a/b/c", "a/file", "a/none", "none/x"}
	for p := range files {
		for d := p; ; {
			i := bytes.LastIndexByte([]byte(d), '/')
			if i < 0 {
				break
			}
			d = d[:i]
			dirs = append(dirs, d)
		}
	}
	got, err := r.ReadTrees(context.Background(), root, dirs)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		req := root
		if d != "" {
			req = root + ":" + d
		}
		objs, err := r.CatFile(context.Background(), []string{req})
		if err != nil {
			t.Fatal(err)
		}
		body, ok := got[d]
		if want := objs[0].Type == "tree"; ok != want || (ok && !bytes.Equal(body, objs[0].Body)) {
			t.Errorf("%q: got %v %q, cat-file says %s %q", d, ok, body, objs[0].Type, objs[0].Body)
		}
	}
	if got, err := r.ReadTrees(context.Background(), "1234567890123456789012345678901234567890", []string{"", "a"}); err != nil || len(got) != 0 {
		t.Errorf("a missing root gave %v, %v", got, err)
	}
}

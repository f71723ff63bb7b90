package git

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestIndexPlumbing(t *testing.T) {
	ctx := context.Background()
	r, dir := newRepo(t)
	tree := writeFiles(t, r, dir, awkwardFiles("c "))
	entries, err := r.LsStage(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, e := range entries {
		paths = append(paths, e.Path)
		if e.Mode != "100644" || e.Stage != 0 || len(e.OID) < 40 {
			t.Errorf("entry %+v", e)
		}
	}
	want := slices.Clone(awkward)
	slices.Sort(want)
	if !slices.Equal(paths, want) { // the index is sorted
		t.Errorf("LsStage = %q, want %q", paths, want)
	}

	// The same entries in a fresh index give the same tree, and come out
	// under a prefix with their content.
	scratch := t.TempDir()
	index := filepath.Join(scratch, "index")
	if err := r.UpdateIndexInfo(ctx, index, entries); err != nil {
		t.Fatal(err)
	}
	if got, err := r.WriteTree(ctx, index); err != nil || got != tree {
		t.Errorf("WriteTree = %q, %v, want %q", got, err, tree)
	}
	some := filepath.Join(scratch, "some") + "/"
	if err := r.CheckoutPaths(ctx, index, some, []string{"-dash", "new\nline"}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(some, "new\nline")); err != nil || string(b) != "c new\nline" {
		t.Errorf("checked out %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(some, "tab\there")); err == nil {
		t.Error("CheckoutPaths wrote a path it was not given")
	}
	all := filepath.Join(scratch, "all") + "/"
	if err := r.CheckoutAll(ctx, index, all); err != nil {
		t.Fatal(err)
	}
	for _, p := range awkward {
		if b, err := os.ReadFile(filepath.Join(all, p)); err != nil || string(b) != "c "+p {
			t.Errorf("CheckoutAll %q: %q, %v", p, b, err)
		}
	}

	empty, err := r.WriteEmptyTree(ctx)
	if err != nil || empty != "4b825dc642cb6eb9a060e54bf8d69288fbee4904" {
		t.Errorf("WriteEmptyTree = %q, %v", empty, err)
	}
	if _, err := parseLsStage([]byte("100644 abc x\tp\x00")); err == nil {
		t.Error("a stage that is no number was accepted")
	}
}

// TestWriteBlobs stores files as they are, whatever their names, and no
// filter applies: a CRLF file stays CRLF under core.autocrlf.
func TestWriteBlobs(t *testing.T) {
	ctx := context.Background()
	r, dir := newRepo(t)
	run(t, r, "config", "core.autocrlf", "true")
	var paths []string
	for _, p := range awkward {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte("x\r\n"+p), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	ids, err := r.WriteBlobs(ctx, append(paths, "missing\nfile"))
	if err == nil {
		t.Error("a missing file gave no error")
	}
	for _, p := range paths {
		objs, err := r.CatFile(ctx, []string{ids[p]})
		if err != nil || objs[0].Missing || string(objs[0].Body) != "x\r\n"+p {
			t.Errorf("%q: %+v, %v", p, objs, err)
		}
	}
	if _, ok := ids["missing\nfile"]; ok {
		t.Error("a missing file has an id")
	}
}

func TestConfigAndGitPath(t *testing.T) {
	ctx := context.Background()
	r, dir := newRepo(t)
	run(t, r, "config", "checkpoint.keep", "5")
	run(t, r, "config", "checkpoint.note", "two\nlines")
	run(t, r, "config", "--add", "checkpoint.note", "again")
	got, err := r.ConfigGetRegexp(ctx, `^checkpoint\.`)
	if err != nil {
		t.Fatal(err)
	}
	local := func(k, v string) ConfigEntry {
		return ConfigEntry{Key: k, Value: v, Scope: "local", Origin: "file:.git/config"}
	}
	want := []ConfigEntry{local("checkpoint.keep", "5"), local("checkpoint.note", "two\nlines"), local("checkpoint.note", "again")}
	if !slices.Equal(got, want) {
		t.Errorf("ConfigGetRegexp = %q, want %q", got, want)
	}
	if none, err := r.ConfigGetRegexp(ctx, `^nothing\.`); err != nil || len(none) != 0 {
		t.Errorf("no match = %q, %v", none, err)
	}
	if got := parseConfig([]byte("local\x00file:.git/config\x00core.bare\x00command\x00command line:\x00a.b\nc\x00")); !slices.Equal(got, []ConfigEntry{
		{Key: "core.bare", Scope: "local", Origin: "file:.git/config"}, {Key: "a.b", Value: "c", Scope: "command", Origin: "command line:"}}) {
		t.Errorf("parseConfig = %q", got)
	}

	p, err := r.GitPath(ctx, "checkpoints")
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(dir)
	if p != filepath.Join(dir, ".git", "checkpoints") && p != filepath.Join(real, ".git", "checkpoints") {
		t.Errorf("GitPath = %q", p)
	}
	run(t, r, "config", "core.hooksPath", "/my hooks")
	if p, err := r.UserGitPath(ctx, "hooks/post-commit"); err != nil || p != "/my hooks/post-commit" {
		t.Errorf("UserGitPath = %q, %v", p, err)
	}
}

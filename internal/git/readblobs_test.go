package git

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestReadBlobs reads blobs in the order asked, a repeated one as often
// as asked, and an empty one; it stops at the first error of each and
// refuses an id that is not a blob.
func TestReadBlobs(t *testing.T) {
	r, dir := newRepo(t)
	tree := writeFiles(t, r, dir, map[string]string{"a": "alpha\n", "b": "", "c/d": strings.Repeat("x", 200000)})
	ctx := context.Background()
	var oids []string
	for _, p := range []string{"c/d", "a", "b", "a"} {
		oids = append(oids, run(t, r, "rev-parse", tree+":"+p))
	}
	var got []string
	if err := r.ReadBlobs(ctx, oids, func(i int, body []byte) error {
		got = append(got, string(body))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := []string{strings.Repeat("x", 200000), "alpha\n", "", "alpha\n"}
	if len(got) != len(want) {
		t.Fatalf("read %d blobs, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("blob %d: %.20q, want %.20q", i, got[i], want[i])
		}
	}
	stop := errors.New("stop")
	n := 0
	if err := r.ReadBlobs(ctx, oids, func(int, []byte) error { n++; return stop }); !errors.Is(err, stop) || n != 1 {
		t.Errorf("an error of each: %v after %d blobs, want stop after 1", err, n)
	}
	if err := r.ReadBlobs(ctx, []string{tree}, func(int, []byte) error { return nil }); err == nil {
		t.Errorf("a tree read as a blob: no error")
	}
}

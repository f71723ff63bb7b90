package capture

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestCleanCaptureKeepsStateFile: a capture that changes nothing leaves
// index.state as it was, the same file, while one that changes the tree
// saves its new state.
func TestCleanCaptureKeepsStateFile(t *testing.T) {
	c, j := testRepo(t, map[string]string{"a/1.txt": "1\n"})
	ctx := context.Background()
	ino := func() uint64 {
		t.Helper()
		fi, err := os.Stat(c.Store.Path("index.state"))
		if err != nil {
			t.Fatal(err)
		}
		return fi.Sys().(*syscall.Stat_t).Ino
	}
	before := ino()
	if _, err := c.Capture(ctx, j, Options{Reason: "test"}); err != nil {
		t.Fatal(err)
	}
	if ino() != before {
		t.Error("a capture of an unchanged tree rewrote index.state")
	}
	write(t, filepath.Join(c.Repo.Top, "a/1.txt"), "one\n")
	rec, err := c.Capture(ctx, j, Options{Reason: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if st := c.loadState(); st.Tree != rec.Tree && st.Result != rec.Tree {
		t.Errorf("after a change, the state names %q/%q, not the capture's %s", st.Tree, st.Result, rec.Tree)
	}
}

// TestStateSavedAfterForget: once forget has written the state without
// its tree, saving the state as it was read writes it again, though its
// bytes are what the file held when it was read.
func TestStateSavedAfterForget(t *testing.T) {
	c, _ := testRepo(t, map[string]string{"a/1.txt": "1\n"})
	st := c.loadState()
	tree := st.Tree
	if tree == "" {
		t.Fatal("no tree in the state after a capture")
	}
	if err := c.forget(st); err != nil {
		t.Fatal(err)
	}
	if err := c.saveState(st); err != nil {
		t.Fatal(err)
	}
	if got := c.loadState().Tree; got != tree {
		t.Fatalf("the state saved after forget names tree %q, want %s", got, tree)
	}
}

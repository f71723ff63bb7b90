package capture

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/git"
)

// TestStateAsideOnlyWhileWritten: a scan that writes aside has its state
// read from memory while the file is being written, and from the file
// once it is: a rewind that asks a person lets the lock go, and another
// process may then have saved its own state, which the rewind's next scan
// must start from.
func TestStateAsideOnlyWhileWritten(t *testing.T) {
	c, j := testRepo(t, map[string]string{"a/1.txt": "1\n"})
	ctx := context.Background()
	c.Git.Aside, c.Git.Trees = git.NewAside(), git.NewTrees()
	write(t, filepath.Join(c.Repo.Top, "a/1.txt"), "one\n")
	c.WriteAside = true
	snap, err := c.Snapshot(ctx, j)
	c.WriteAside = false
	if err != nil {
		t.Fatal(err)
	}
	// The writes aside still going on.
	release := make(chan struct{})
	c.Git.Aside.Go(func() error { <-release; return nil })
	if st := c.loadState(); st.Tree != snap.Tree && st.Result != snap.Tree {
		t.Fatalf("while written aside, the state names %q/%q, not the scan's %s", st.Tree, st.Result, snap.Tree)
	}
	close(release)
	if err := c.Git.Aside.Settle(); err != nil {
		t.Fatal(err)
	}
	// Another process's capture, after this one let the lock go.
	if err := os.WriteFile(c.Store.Path("index.state"), []byte(`{"tree":"another"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if st := c.loadState(); st.Tree != "another" {
		t.Fatalf("after the write aside, the state read is this process's (%q), not the file's", st.Tree)
	}
}

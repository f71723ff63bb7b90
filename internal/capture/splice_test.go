package capture

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// TestSpliceMatchesWriteTree replaces, inserts (into new nested
// directories too) and removes entries, emptying a directory on the way,
// and checks that the spliced tree is the one git's own index gives for
// the same files, and that its change counts are right.
func TestSpliceMatchesWriteTree(t *testing.T) {
	c, j := testRepo(t, map[string]string{"a": "a\n", "d/b": "b\n", "d/e/c": "c\n", "gone/only": "x\n", "keep": "k\n"})
	ctx := context.Background()
	top := c.Repo.Top
	write(t, filepath.Join(top, "a"), "a2\n")
	write(t, filepath.Join(top, "new/deeper/f"), "f\n")
	write(t, filepath.Join(top, "d/e/n"), "n\n")
	if err := os.Remove(filepath.Join(top, "d/b")); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(top, "gone")); err != nil {
		t.Fatal(err)
	}
	var items []*named
	for _, p := range []string{"a", "new/deeper/f", "d/e/n", "d/b", "gone/only"} {
		it, ok := c.probe(p)
		if !ok {
			t.Fatalf("probe %s refused", p)
		}
		items = append(items, it)
	}
	sp, ok, err := c.newSplice(ctx, j.Latest().Tree, items)
	if err != nil || !ok {
		t.Fatalf("newSplice: %v %v", ok, err)
	}
	index, _, err := c.hashNamed(ctx, items, true, len(j.Latest().Tree))
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(index)
	var changes store.Changes
	for _, it := range items {
		it.count(&changes, it.base, it.inBase)
	}
	if want := (store.Changes{Modified: 1, Added: 2, Deleted: 2}); changes != want {
		t.Errorf("changes %+v, want %+v", changes, want)
	}
	got, err := sp.write(ctx, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := indexTree(t, c)
	if got != want {
		t.Fatalf("spliced tree %s, git's %s\n%s", got, want, treeDiff(t, c, got, want))
	}
}

// TestSpliceKnownRootWritesNothing checks that a splice whose result is a
// tree the caller knows to exist runs no git process to write it.
func TestSpliceKnownRootWritesNothing(t *testing.T) {
	c, j := testRepo(t, map[string]string{"d/a": "a\n"})
	ctx := context.Background()
	it, ok := c.probe("d/a")
	if !ok {
		t.Fatal("probe refused")
	}
	sp, ok, err := c.newSplice(ctx, j.Latest().Tree, []*named{it})
	if err != nil || !ok {
		t.Fatalf("newSplice: %v %v", ok, err)
	}
	it.known, it.entry = true, it.base // unchanged: nothing to hash
	var trace strings.Builder
	c.Git.Trace = &git.LockedWriter{W: &trace}
	got, err := sp.write(ctx, []string{j.Latest().Tree}, nil)
	if err != nil || got != j.Latest().Tree {
		t.Fatalf("write = %s, %v; want the base %s", got, err, j.Latest().Tree)
	}
	if trace.Len() != 0 {
		t.Fatalf("git ran:\n%s", trace.String())
	}
}

// TestSpliceRefusesFileOnTheWay checks that a path below what the base
// holds as a file, or a directory named itself, is left to a full scan.
func TestSpliceRefusesFileOnTheWay(t *testing.T) {
	c, j := testRepo(t, map[string]string{"f": "f\n", "d/a": "a\n"})
	ctx := context.Background()
	for _, p := range []string{"f/below", "d"} {
		sp, ok, err := c.newSplice(ctx, j.Latest().Tree, []*named{{path: p}})
		if err != nil || ok || sp != nil {
			t.Errorf("%s: newSplice = %v, %v, %v; want a refusal", p, sp, ok, err)
		}
	}
}

// indexTree is the tree git writes for the whole working tree, through an
// index of its own.
func indexTree(t *testing.T, c *Capturer) string {
	t.Helper()
	ctx := context.Background()
	index := filepath.Join(t.TempDir(), "index")
	if _, err := c.Git.Run(ctx, git.Cmd{Args: []string{"add", "-A", "-f"}, Index: index}); err != nil {
		t.Fatal(err)
	}
	out, err := c.Git.Run(ctx, git.Cmd{Args: []string{"write-tree"}, Index: index})
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

package capture

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/gittest"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// statEdits are the changes the stat check must see (or, for an ignored
// path, may pass over), each one a way a tree changes that stat data or a
// directory's names show differently: the same bytes' size with the old
// modification time put back, a name in a directory of ignored files
// only, in an empty one, a nested repository begun or ended, rules
// changed inside and outside the tree, a rename that keeps the inode, a
// directory swapped for a link to itself moved.
var statEdits = []struct {
	name string
	edit func(t *testing.T, top string, i int)
}{
	{"same size, old mtime", func(t *testing.T, top string, i int) {
		p := filepath.Join(top, "src/a.txt")
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(p)
		b[0] ^= 1
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
			t.Fatal(err)
		}
	}},
	{"new in a directory of ignored files", func(t *testing.T, top string, i int) {
		write(t, filepath.Join(top, "logs", fmt.Sprintf("n%d.txt", i)), "seen\n")
	}},
	{"new in an empty directory", func(t *testing.T, top string, i int) {
		write(t, filepath.Join(top, "empty", fmt.Sprintf("n%d.txt", i%3)), fmt.Sprint(i, "\n"))
	}},
	{"ignored file written", func(t *testing.T, top string, i int) {
		write(t, filepath.Join(top, "logs", "a.log"), fmt.Sprint("log ", i, "\n"))
		write(t, filepath.Join(top, "build", fmt.Sprintf("o%d", i%4)), "out\n")
	}},
	{"tracked file in an ignored directory", func(t *testing.T, top string, i int) {
		rewrite(t, filepath.Join(top, "build", "keep.txt"), fmt.Sprint("kept ", i, "\n"))
	}},
	{"nested repository begun or ended", func(t *testing.T, top string, i int) {
		dir := filepath.Join(top, "src", "nested")
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			os.RemoveAll(filepath.Join(dir, ".git"))
			return
		}
		write(t, filepath.Join(dir, "inner.txt"), "inner\n")
		if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
			t.Fatalf("git init: %v\n%s", err, out)
		}
	}},
	{".gitignore changed", func(t *testing.T, top string, i int) {
		rules := []string{"*.log\nbuild/\n", "build/\n", "*.log\nbuild/\nsrc/b.txt\n"}
		rewrite(t, filepath.Join(top, ".gitignore"), rules[i%len(rules)])
	}},
	{"info/exclude changed", func(t *testing.T, top string, i int) {
		write(t, filepath.Join(top, ".git", "info", "exclude"), []string{"", "*.txt\n", "logs/\n"}[i%3])
	}},
	{"mode flipped", func(t *testing.T, top string, i int) {
		p := filepath.Join(top, "src/b.txt")
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
			os.Chmod(p, fi.Mode()^0o100)
		}
	}},
	{"link retargeted", func(t *testing.T, top string, i int) {
		p := filepath.Join(top, "src/link")
		os.Remove(p)
		if err := os.Symlink(fmt.Sprint("target-", i%2), p); err != nil {
			t.Fatal(err)
		}
	}},
	{"file and directory swapped", func(t *testing.T, top string, i int) {
		p := filepath.Join(top, "src/swap")
		if fi, err := os.Lstat(p); err == nil && fi.IsDir() {
			os.RemoveAll(p)
			write(t, p, "a file\n")
		} else {
			os.Remove(p)
			write(t, filepath.Join(p, "inside.txt"), "a directory\n")
		}
	}},
	{"renamed, same inode", func(t *testing.T, top string, i int) {
		a, b := filepath.Join(top, "src/c.txt"), filepath.Join(top, "src/d.txt")
		if _, err := os.Stat(a); err != nil {
			a, b = b, a
		}
		if err := os.Rename(a, b); err != nil {
			t.Fatal(err)
		}
	}},
	{"directory moved, a link in its place", func(t *testing.T, top string, i int) {
		dir, moved := filepath.Join(top, "deep"), filepath.Join(top, "deep-moved")
		if fi, err := os.Lstat(dir); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			os.Remove(dir)
			if err := os.Rename(moved, dir); err != nil {
				t.Fatal(err)
			}
			return
		}
		if err := os.Rename(dir, moved); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("deep-moved", dir); err != nil {
			t.Fatal(err)
		}
	}},
	{"deleted and made again", func(t *testing.T, top string, i int) {
		p := filepath.Join(top, "deep/e/f/g.txt")
		if _, err := os.Stat(p); err == nil {
			os.Remove(p)
		} else {
			write(t, p, "g\n")
		}
	}},
}

// TestStatCheckMatchesScan makes each edit in statEdits, at random, and
// after each takes two captures: the first must see the edit, the second
// finds nothing new. Every capture's tree must be the one git's scan
// finds from the same private index and state without the record (a copy
// of both, in a store of its own), whether or not the stat check vouched
// for the tree; and the check must have both vouched and declined, or the
// test no longer tests it.
func TestStatCheckMatchesScan(t *testing.T) {
	g := gittest.NewRepoWith(t, map[string]string{
		".gitignore": "*.log\nbuild/\n", "src/a.txt": "aaaa\n", "src/b.txt": "b\n", "src/c.txt": "c\n",
		"deep/e/f/g.txt": "g\n", "logs/a.log": "log\n", "build/keep.txt": "kept\n", "build/o0": "out\n",
	})
	if err := os.Mkdir(filepath.Join(g.Dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("target-0", filepath.Join(g.Dir, "src/link")); err != nil {
		t.Fatal(err)
	}
	c, j := capturerOf(t, g)
	// Hashing "happens" later than any edit: the stat data of paths a
	// capture took without writing them into the index are trusted
	// (trustedStat), and the check compares them.
	c.Store.Now = func() time.Time { return time.Now().Add(10 * time.Second) }
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(5, 7))
	vouched, declined := 0, 0
	capture := func(what string) {
		t.Helper()
		want := scannedWithoutRecord(t, c)
		var trace strings.Builder
		c.Git.Trace = &git.LockedWriter{W: &trace}
		snap, err := c.Snapshot(ctx, j)
		c.Git.Trace = nil
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		vouched += strings.Count(trace.String(), "stat check: the tree is the last scan's")
		declined += strings.Count(trace.String(), "stat check: a scan is needed")
		if testing.Verbose() {
			for _, l := range strings.Split(trace.String(), "\n") {
				if strings.Contains(l, "stat check") {
					t.Logf("%s: %s", what, l)
				}
			}
		}
		if snap.Tree != want.Tree {
			t.Fatalf("%s: the capture gave %s, git's scan %s\n%s\ntrace:\n%s", what, snap.Tree, want.Tree,
				treeDiff(t, c, snap.Tree, want.Tree), trace.String())
		}
		if _, err := c.Record(ctx, j, snap, Options{Reason: "test", NoDedup: true}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 80 {
		e := statEdits[rng.IntN(len(statEdits))]
		if i < len(statEdits) {
			e = statEdits[i] // each at least once
		}
		e.edit(t, c.Repo.Top, i)
		capture(fmt.Sprintf("edit %d, %s", i, e.name))
		capture(fmt.Sprintf("edit %d, %s, then nothing", i, e.name))
		// A nested repository is skipped, and a snapshot that skipped
		// anything leaves no record: ended at once, the check goes on.
		if nested := filepath.Join(c.Repo.Top, "src/nested/.git"); exists(nested) {
			os.RemoveAll(nested)
			capture(fmt.Sprintf("edit %d, the nested repository ended", i))
		}
	}
	if vouched < 40 || declined < 40 {
		t.Fatalf("the stat check vouched %d times and declined %d: the test no longer exercises it", vouched, declined)
	}
	t.Logf("the stat check vouched %d times and declined %d", vouched, declined)
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// scannedWithoutRecord is the snapshot git's scan takes of the tree from
// copies of c's private index (its modification time kept, which decides
// what git compares by content) and state, the record left out.
func scannedWithoutRecord(t *testing.T, c *Capturer) *Snapshot {
	t.Helper()
	dir := t.TempDir()
	if err := copyKeepMtime(c.PrivateIndex(), filepath.Join(dir, "index")); err != nil {
		t.Fatal(err)
	}
	st := c.loadState()
	st.Stat = nil
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "index.state"), string(b))
	o := &Capturer{Repo: c.Repo, Git: c.Git, Cfg: c.Cfg,
		Store: &store.Store{Dir: dir, Worktree: "main", RefPrefix: "refs/checkpoints/scan/", Git: c.Git, Now: time.Now}}
	snap, err := o.Snapshot(context.Background(), &store.Journal{})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

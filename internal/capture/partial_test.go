package capture

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/config"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/gittest"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// testRepo makes a repository with a first commit and a Capturer for it.
func testRepo(t *testing.T, files map[string]string) (*Capturer, *store.Journal) {
	t.Helper()
	return capturerOf(t, gittest.NewRepoWith(t, files))
}

// capturerOf is testRepo's capturer for a repository made already.
func capturerOf(t *testing.T, g *gittest.Repo) (*Capturer, *store.Journal) {
	t.Helper()
	ctx := context.Background()
	r := &git.Runner{Dir: g.Dir, Env: g.Env}
	repo, err := git.Discover(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	st := store.New(repo, r, time.Now)
	c := &Capturer{Repo: repo, Store: st, Git: r, Cfg: config.Default()}
	j, err := st.Journal()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Capture(ctx, j, Options{Reason: "test"}); err != nil {
		t.Fatal(err)
	}
	return c, j
}

// namesRepo is testRepo with a file of each name in x/ and in d/e/, and
// the .gitignore given, for the randomized tests to edit.
func namesRepo(t *testing.T, names []string, gitignore string) (*Capturer, *store.Journal) {
	t.Helper()
	initial := map[string]string{".gitignore": gitignore}
	for i, n := range names {
		initial["x/"+n] = fmt.Sprint("x ", i, "\n")
		initial["d/e/"+n] = fmt.Sprint("d ", i, "\n")
	}
	return testRepo(t, initial)
}

// rewrite replaces whatever is at p (a symlink too) by a file.
func rewrite(t *testing.T, p, content string) {
	t.Helper()
	os.Remove(p)
	write(t, p, content)
}

// TestPartialMatchesFullScan makes random edits of every kind the partial
// capture handles, names the changed paths (and some unchanged ones), and
// checks that the partial tree is the tree a full scan then finds.
func TestPartialMatchesFullScan(t *testing.T) {
	names := []string{"a", "b c", "é", `q"uote`, `back\slash`, "tab\tx", "-dash", "x", "x.c", "x-y", "x0"}
	c, j := namesRepo(t, names, "*.log\n/build/\n")
	ctx := context.Background()
	top := c.Repo.Top
	rng := rand.New(rand.NewPCG(5, 7))
	dirs := []string{"", "x", "d", "d/e", "new", "new/deeper/still", "x/x"}
	pick := func() string {
		return path.Join(dirs[rng.IntN(len(dirs))], names[rng.IntN(len(names))])
	}
	partials, prehashed, rewritten := 0, 0, 0
	for iter := 0; iter < 30; iter++ {
		var changed []string
		for k := 0; k < 1+rng.IntN(5); k++ {
			p := pick()
			abs := filepath.Join(top, p)
			fi, err := os.Lstat(abs)
			exists := err == nil
			if exists && fi.IsDir() || fileOnWay(top, p) {
				continue
			}
			switch op := rng.IntN(6); {
			case op == 0 && exists:
				os.Remove(abs)
			case op == 1 && exists && fi.Mode().IsRegular():
				os.Chmod(abs, fi.Mode()^0o111)
			case op == 2:
				os.MkdirAll(filepath.Dir(abs), 0o755)
				os.Remove(abs)
				if err := os.Symlink("target "+p, abs); err != nil {
					continue
				}
			case op == 3:
				p += ".log" // ignored unless tracked
				if dirExists(filepath.Join(top, p)) {
					continue
				}
				rewrite(t, filepath.Join(top, p), "log\n")
			default:
				rewrite(t, abs, fmt.Sprint("iteration ", iter, " ", k, "\n"))
			}
			changed = append(changed, p)
		}
		changed = append(changed, "x/a", "never/there")
		// Every other capture hashes the files first, as a hook does
		// before it waits for the lock, and sometimes one of them is
		// written again in between: its entry must not be used.
		var pre *Prehash
		if iter%2 == 1 {
			pre = c.Prehash(ctx, changed)
			if pre != nil {
				prehashed++
			}
			if p := changed[0]; rng.IntN(2) == 0 && pre != nil && pre.entries[p].stat != "" {
				rewrite(t, filepath.Join(top, p), fmt.Sprint("again ", iter, "\n"))
				rewritten++
			}
		}
		psnap, err := c.snapshotPaths(ctx, j, changed, nil, pre, budget{strict: true})
		if err != nil {
			t.Fatalf("iteration %d: partial: %v", iter, err)
		}
		if psnap.Partial {
			partials++
		}
		full, err := c.Snapshot(ctx, j)
		if err != nil {
			t.Fatalf("iteration %d: full: %v", iter, err)
		}
		if psnap.Tree != full.Tree {
			t.Fatalf("iteration %d: partial capture of %q gave tree %s, the full scan %s\n%s", iter, changed,
				psnap.Tree, full.Tree, treeDiff(t, c, psnap.Tree, full.Tree))
		}
		if _, err := c.Record(ctx, j, full, Options{Reason: "test", NoDedup: true}); err != nil {
			t.Fatal(err)
		}
	}
	if partials < 15 {
		t.Fatalf("only %d of 30 captures were partial: the test no longer exercises the partial path", partials)
	}
	if prehashed < 5 || rewritten < 2 {
		t.Fatalf("%d captures used files hashed first, %d of them with a file written again: too few to test it", prehashed, rewritten)
	}
}

func dirExists(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.IsDir()
}

// fileOnWay reports whether a file or symlink sits where p needs a
// directory; such edits are skipped (writing would need a directory).
func fileOnWay(top, p string) bool {
	d := top
	for _, comp := range strings.Split(path.Dir(p), "/") {
		d = filepath.Join(d, comp)
		if fi, err := os.Lstat(d); err == nil && !fi.IsDir() {
			return true
		}
	}
	return false
}

func treeDiff(t *testing.T, c *Capturer, a, b string) string {
	out, _ := c.Git.Run(context.Background(), git.Cmd{Args: []string{"diff-tree", "-r", a, b}})
	return string(out)
}

// TestPartialDropsOutsideAndSkipsIgnored checks the screening: a path
// outside the tree is dropped (it cannot change the tree), a new ignored
// file is not added, a tracked file that matches an ignore rule is, and a
// file over maxFileBytes is skipped and listed.
func TestPartialDropsOutsideAndSkipsIgnored(t *testing.T) {
	c, j := testRepo(t, map[string]string{".gitignore": "*.log\n", "kept.log": "tracked\n", "a.txt": "a\n"})
	ctx := context.Background()
	top := c.Repo.Top
	c.Cfg.MaxFileBytes = 18
	write(t, filepath.Join(top, "kept.log"), "tracked, changed\n")
	write(t, filepath.Join(top, "new.log"), "ignored\n")
	write(t, filepath.Join(top, "a.txt"), "a2\n")
	write(t, filepath.Join(top, "big.txt"), "more than ten bytes\n")
	outside := filepath.Join(t.TempDir(), "elsewhere.txt")
	write(t, outside, "outside\n")
	rec, err := c.Capture(ctx, j, Options{Reason: "tool", Only: []string{
		filepath.Join(top, "kept.log"), "new.log", "a.txt", "big.txt", outside}})
	if err != nil {
		t.Fatal(err)
	}
	if !rec.Partial {
		t.Fatalf("the capture was not partial: %+v", rec)
	}
	out, err := c.Git.Run(ctx, git.Cmd{Args: []string{"ls-tree", "-r", "--name-only", "-z", rec.Tree}})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if want := []string{".gitignore", "a.txt", "kept.log"}; !slices.Equal(got, want) {
		t.Fatalf("tree holds %q, want %q", got, want)
	}
	blob, _ := c.Git.Run(ctx, git.Cmd{Args: []string{"cat-file", "blob", rec.Tree + ":kept.log"}})
	if string(blob) != "tracked, changed\n" {
		t.Fatalf("kept.log holds %q", blob)
	}
	if len(rec.Skipped) != 1 || rec.Skipped[0].Path != "big.txt" || rec.Skipped[0].Reason != store.SkipTooBig {
		t.Fatalf("skipped %+v, want big.txt as too_big", rec.Skipped)
	}
	if rec.Changes != (store.Changes{Modified: 2}) {
		t.Fatalf("changes %+v, want 2 modified", rec.Changes)
	}
}

// TestOnlyOutsideTheTree checks that a tool call that wrote only outside
// the tree makes no git process beyond discovery and a reused checkpoint.
func TestOnlyOutsideTheTree(t *testing.T) {
	c, j := testRepo(t, map[string]string{"a.txt": "a\n"})
	write(t, filepath.Join(c.Repo.Top, "unnamed.txt"), "u\n")
	var trace strings.Builder
	c.Git.Trace = &git.LockedWriter{W: &trace}
	rec, err := c.Capture(context.Background(), j, Options{Reason: "tool", Only: []string{filepath.Join(t.TempDir(), "x")}})
	if err != nil {
		t.Fatal(err)
	}
	if !rec.Reused || !rec.Partial || strings.Contains(trace.String(), "trace: git ") {
		t.Fatalf("record %+v, git ran:\n%s", rec, trace.String())
	}
}

// TestOnlyFallsBackPastMaxOnly checks that naming more than MaxOnly paths
// gets a full scan.
func TestOnlyFallsBackPastMaxOnly(t *testing.T) {
	c, j := testRepo(t, map[string]string{"a.txt": "a\n"})
	write(t, filepath.Join(c.Repo.Top, "unnamed.txt"), "u\n")
	var many []string
	for i := 0; i <= MaxOnly; i++ {
		many = append(many, fmt.Sprintf("f%03d", i))
	}
	rec, err := c.Capture(context.Background(), j, Options{Reason: "tool", Only: many})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Partial || rec.Changes.Added != 1 {
		t.Fatalf("want a full scan that finds unnamed.txt, got %+v", rec)
	}
}

// TestPartialKeepsRawBytes checks the raw overlay through a partial
// capture: a CRLF file under text=auto is stored normalized, so its bytes
// are kept raw, as a full scan keeps them; naming it again once it has
// LF only drops it from the overlay.
func TestPartialKeepsRawBytes(t *testing.T) {
	c, j := testRepo(t, map[string]string{".gitattributes": "* text=auto\n", "a.txt": "a\n", "b.txt": "b\n"})
	ctx := context.Background()
	top := c.Repo.Top
	write(t, filepath.Join(top, "a.txt"), "a\r\nb\r\n")
	rec, err := c.Capture(ctx, j, Options{Reason: "tool", Only: []string{"a.txt"}})
	if err != nil {
		t.Fatal(err)
	}
	if !rec.Partial || rec.Raw == "" {
		t.Fatalf("want a partial capture with a raw overlay, got %+v", rec)
	}
	blob, err := c.Git.Run(ctx, git.Cmd{Args: []string{"cat-file", "blob", rec.Raw + ":a.txt"}})
	if err != nil || string(blob) != "a\r\nb\r\n" {
		t.Fatalf("the overlay holds %q (%v), want the CRLF bytes", blob, err)
	}
	full, err := c.Snapshot(ctx, j)
	if err != nil {
		t.Fatal(err)
	}
	if full.Tree != rec.Tree || full.Raw != rec.Raw {
		t.Fatalf("partial tree %s raw %s, full scan tree %s raw %s", rec.Tree, rec.Raw, full.Tree, full.Raw)
	}
	write(t, filepath.Join(top, "a.txt"), "a\nb\n")
	again, err := c.Capture(ctx, j, Options{Reason: "tool", Only: []string{"a.txt"}})
	if err != nil {
		t.Fatal(err)
	}
	if !again.Partial || again.Raw != "" {
		t.Fatalf("want a partial capture without an overlay, got %+v", again)
	}
}

// TestPrehashModeFromDisk hashes a file before a per-tool capture with
// core.fileMode=false: the checkpoint records the bit the disk has
// (invariant 10), in the entry hashed first and in the capture's, not
// the base's 100755 that git would keep under the user's setting.
func TestPrehashModeFromDisk(t *testing.T) {
	c, j := testRepo(t, map[string]string{"run.sh": "#!/bin/sh\n"})
	ctx := context.Background()
	top := c.Repo.Top
	if err := os.Chmod(filepath.Join(top, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Capture(ctx, j, Options{Reason: "test"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Git.Run(ctx, git.Cmd{Args: []string{"config", "core.fileMode", "false"}}); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(ctx, c.Git)
	if err != nil {
		t.Fatal(err)
	}
	c.Cfg = cfg
	write(t, filepath.Join(top, "run.sh"), "#!/bin/sh\necho changed\n")
	if err := os.Chmod(filepath.Join(top, "run.sh"), 0o644); err != nil {
		t.Fatal(err)
	}
	only := []string{"run.sh"}
	pre := c.Prehash(ctx, only)
	if pre == nil || pre.entries["run.sh"].entry.Mode != "100644" {
		t.Fatalf("hashing first gave %+v; want the disk's 100644", pre)
	}
	rec, err := c.Capture(ctx, j, Options{Reason: "tool", Only: only, Prehash: pre})
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.Git.Run(ctx, git.Cmd{Args: []string{"ls-tree", rec.Tree, "run.sh"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(out), "100644 ") {
		t.Fatalf("the per-tool checkpoint holds %q, want the disk's mode 100644", out)
	}
}

// TestPartialWithExpect checks that what a caller expects changes only the
// cost of a partial capture, never its tree: with the right entries the
// capture reads no tree (no cat-file) and is the expected tree; with a
// wrong one it splices as usual and is still the tree a full scan finds.
func TestPartialWithExpect(t *testing.T) {
	names := []string{"a", "b c", "é", "x", "x.c", "x0"}
	c, j := namesRepo(t, names, "*.log\n")
	ctx := context.Background()
	top := c.Repo.Top
	var trace strings.Builder
	c.Git.Trace = &git.LockedWriter{W: &trace}
	rng := rand.New(rand.NewPCG(11, 13))
	dirs := []string{"", "x", "d/e", "new/deeper"}
	fast, slow := 0, 0
	for iter := 0; iter < 24; iter++ {
		for k := 0; k < 1+rng.IntN(4); k++ {
			p := path.Join(dirs[rng.IntN(len(dirs))], names[rng.IntN(len(names))])
			abs := filepath.Join(top, p)
			if fi, err := os.Lstat(abs); err == nil && fi.IsDir() || fileOnWay(top, p) {
				continue
			}
			switch rng.IntN(4) {
			case 0:
				os.Remove(abs)
			case 1:
				rewrite(t, filepath.Join(top, p+".log"), "ignored\n")
			default:
				rewrite(t, abs, fmt.Sprint("iteration ", iter, " ", k, "\n"))
			}
		}
		base := j.Latest().Tree
		full, err := c.Snapshot(ctx, j)
		if err != nil {
			t.Fatal(err)
		}
		diff, err := c.Git.DiffTree(ctx, base, full.Tree, git.DiffTreeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(diff) == 0 {
			continue
		}
		exp := &Expect{Tree: full.Tree, Base: base, Entries: map[string]git.DiffEntry{}}
		var paths []string
		for _, e := range diff {
			paths = append(paths, e.Path)
			exp.Entries[e.Path] = e
		}
		wrong := iter%3 == 2
		if wrong {
			// Expect the base's tree, as if the writes had not
			// happened: the capture must find what is really there.
			exp.Tree = base
			for p, x := range exp.Entries {
				exp.Entries[p] = git.DiffEntry{OldMode: x.OldMode, OldOID: x.OldOID, Mode: x.OldMode, OID: x.OldOID, Path: p}
			}
		}
		trace.Reset()
		psnap, err := c.SnapshotPaths(ctx, j, paths, exp)
		if err != nil {
			t.Fatalf("iteration %d: %v", iter, err)
		}
		if psnap.Tree != full.Tree {
			t.Fatalf("iteration %d: partial capture of %q expecting %s gave tree %s, the full scan %s\n%s", iter, paths,
				exp.Tree, psnap.Tree, full.Tree, treeDiff(t, c, psnap.Tree, full.Tree))
		}
		read := strings.Contains(trace.String(), "git cat-file")
		switch {
		case !psnap.Partial:
		case wrong && !read:
			t.Fatalf("iteration %d: a wrong expectation was taken without reading the base's trees:\n%s", iter, trace.String())
		case !wrong && read:
			t.Fatalf("iteration %d: the expected result still read the base's trees:\n%s", iter, trace.String())
		case wrong:
			slow++
		default:
			fast++
		}
		if _, err := c.Record(ctx, j, full, Options{Reason: "test", NoDedup: true}); err != nil {
			t.Fatal(err)
		}
	}
	if fast < 8 || slow < 3 {
		t.Fatalf("%d partial captures took the expected tree and %d a wrong one: too few to test either", fast, slow)
	}
}

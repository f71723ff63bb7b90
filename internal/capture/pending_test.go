package capture

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
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

// TestDeferredMatchesFreshScan makes random edits (content, modes,
// deletions, symlinks, new and ignored files, edits that put a file back
// as committed, CRLF content under text=auto, files grown past the size
// limit, and one batch larger than
// MaxOnly) and takes a full capture after each: its tree and raw overlay,
// built from the pending records without updating the private index,
// must be those a fresh capturer (seeded anew from the real index) finds,
// and its change counts must be those of the trees.
func TestDeferredMatchesFreshScan(t *testing.T) {
	for _, attrs := range []string{"", "* text=auto\n"} {
		for _, split := range []bool{false, true} {
			t.Run(fmt.Sprintf("attributes=%q,split=%v", attrs, split), func(t *testing.T) {
				deferredMatchesFreshScan(t, attrs, split)
			})
		}
	}
}

// deferredMatchesFreshScan is TestDeferredMatchesFreshScan with the scan
// as one process or, split, as two at once as in a large tree.
func deferredMatchesFreshScan(t *testing.T, attrs string, split bool) {
	initial := map[string]string{".gitignore": "*.log\n"}
	if attrs != "" {
		initial[".gitattributes"] = attrs
	}
	for i := 0; i < 30; i++ {
		initial[fmt.Sprintf("d%d/e%d/f%d.txt", i%3, i%5, i)] = fmt.Sprint("file ", i, "\n")
	}
	c, j := testRepo(t, initial)
	c.Cfg.MaxFileBytes = 64
	if split {
		c.splitAt = 1
	}
	ctx := context.Background()
	top := c.Repo.Top
	// Hashing "happens" later than any edit: stat data are trusted, so the
	// pending records are used, not just recomputed.
	c.Store.Now = func() time.Time { return time.Now().Add(10 * time.Second) }
	rng := rand.New(rand.NewPCG(11, 13))
	var names []string
	for n := range initial {
		if !strings.HasPrefix(n, ".git") {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	deferred, fastPath, raw := 0, 0, 0
	prev := j.Latest().Tree
	for iter := 0; iter < 40; iter++ {
		for k := 0; k < 1+rng.IntN(3) || iter == 1 && k < 2; k++ {
			p, op := names[rng.IntN(len(names))], rng.IntN(9)
			switch {
			// First a CRLF file, then the same file back as committed
			// and another changed: a pending path that goes back to the
			// private index's version while others are deferred must
			// leave the raw overlay.
			case iter == 0:
				p, op = names[0], 6
			case iter == 1 && k == 0:
				p, op = names[0], 1
			case iter == 1:
				p, op = names[1], 7
			}
			abs := filepath.Join(top, p)
			switch op {
			case 0:
				os.Remove(abs)
			case 1:
				rewrite(t, abs, initial[p]) // back as committed
			case 2:
				if fi, err := os.Lstat(abs); err == nil && fi.Mode().IsRegular() {
					os.Chmod(abs, fi.Mode()^0o111)
				}
			case 3:
				write(t, filepath.Join(top, fmt.Sprintf("new/n%d.txt", rng.IntN(8))), fmt.Sprint("new ", iter, "\n"))
			case 4:
				write(t, filepath.Join(top, "x.log"), "ignored\n")
			case 5:
				os.Remove(abs)
				if err := os.Symlink(fmt.Sprint("target-", iter), abs); err != nil {
					t.Fatal(err)
				}
			case 6:
				rewrite(t, abs, fmt.Sprint("crlf\r\niteration ", iter, "\r\n"))
			case 7:
				rewrite(t, abs, strings.Repeat("over the size limit\n", 4))
			default:
				rewrite(t, abs, fmt.Sprint("iteration ", iter, "\n"))
			}
		}
		// Forty files in forty directories, new, then all edited (their
		// blobs and trees packed, unless a conversion may apply), then a
		// few put back as they were (35 new blobs, 37 new trees),
		// then every mode flipped (new trees, every blob known).
		for i := 0; iter >= 10 && iter <= 13 && i < 40; i++ {
			abs := filepath.Join(top, fmt.Sprintf("batch/b%02d/f.txt", i))
			switch {
			case iter == 10:
				write(t, abs, fmt.Sprint("batch 10 ", i, "\n"))
			case iter == 11 || iter == 12 && i%8 != 0:
				rewrite(t, abs, fmt.Sprint("batch ", iter, " ", i, "\n"))
				if iter == 11 && i%5 == 0 {
					os.Chmod(abs, 0o755) // a new mode with the new bytes
				}
			case iter == 12:
				rewrite(t, abs, fmt.Sprint("batch 10 ", i, "\n"))
			case iter == 13:
				os.Chmod(abs, 0o755)
			}
		}
		if iter == 20 {
			for i := 0; i <= MaxOnly; i++ {
				write(t, filepath.Join(top, fmt.Sprintf("many/m%03d.txt", i)), "many\n")
			}
		}
		if iter == 30 {
			os.RemoveAll(filepath.Join(top, "many"))
		}
		snap, err := c.Snapshot(ctx, j)
		if err != nil {
			t.Fatalf("iteration %d: %v", iter, err)
		}
		if st := c.loadState(); len(st.Pending) > 0 {
			deferred++
		}

		if snap.Raw != "" {
			raw++
		}
		fresh := &Capturer{Repo: c.Repo, Git: c.Git, Cfg: c.Cfg,
			Store: &store.Store{Dir: t.TempDir(), Worktree: "main", RefPrefix: "refs/checkpoints/fresh/", Git: c.Git, Now: time.Now}}
		want, err := fresh.Snapshot(ctx, &store.Journal{})
		if err != nil {
			t.Fatal(err)
		}
		if snap.Tree != want.Tree {
			t.Fatalf("iteration %d: the capture gave %s, a fresh scan %s\n%s", iter, snap.Tree, want.Tree,
				treeDiff(t, c, snap.Tree, want.Tree))
		}
		if snap.Raw != want.Raw {
			t.Fatalf("iteration %d: the capture's raw overlay is %q, a fresh scan's %q\n%s", iter, snap.Raw, want.Raw,
				treeDiff(t, c, snap.Raw, want.Raw))
		}
		if snap.Known {
			if snap.Tree == prev {
				fastPath++
			}
			got, err := c.countChanges(ctx, prev, snap.Tree)
			if err != nil {
				t.Fatal(err)
			}
			if got != snap.Changes {
				t.Fatalf("iteration %d: counted %+v, the trees differ by %+v", iter, snap.Changes, got)
			}
		}
		if _, err := c.Record(ctx, j, snap, Options{Reason: "test", NoDedup: true}); err != nil {
			t.Fatal(err)
		}
		prev = snap.Tree
	}
	// Iterations 11 and 12 write a pack each, of trees at least; where
	// no conversion may apply, every capture that stores a blob packs
	// it, which the tool hashed, and where one may, the blobs are left to
	// update-index, loose.
	packs, packedBlobs := packedObjects(t, c)
	if deferred < 15 || fastPath == 0 || (attrs != "") != (raw > 0) || packs < 2 || (attrs != "" && packs != 2) || (attrs == "") != (packedBlobs > 0) {
		t.Fatalf("%d of 40 captures deferred their updates, %d found nothing new, %d had a raw overlay, "+
			"%d packs were written with %d blobs: the test no longer exercises them", deferred, fastPath, raw, packs, packedBlobs)
	}
	t.Logf("%d captures deferred, %d unchanged, %d with a raw overlay, %d packs with %d blobs", deferred, fastPath, raw, packs, packedBlobs)
}

// packedObjects counts the repository's packs and the blobs they hold.
func packedObjects(t *testing.T, c *Capturer) (packs, blobs int) {
	t.Helper()
	idx, _ := filepath.Glob(filepath.Join(c.Repo.CommonDir, "objects", "pack", "*.idx"))
	for _, f := range idx {
		out, err := c.Git.Run(context.Background(), git.Cmd{Args: []string{"verify-pack", "-v", f}})
		if err != nil {
			t.Fatal(err)
		}
		blobs += strings.Count(string(out), " blob ")
	}
	return len(idx), blobs
}

// TestDeferredCleanScanRunsOnlyStatus checks the point of the pending
// records: after a capture that deferred its updates, a capture that
// finds the same paths unchanged runs no git at all (the stat check
// vouches for the tree from the pending records' stat data), or, split
// in two as in a large tree (which leaves no record for the stat check),
// only the scan's diff and ls-files --others at once; unless the files
// were written too close to their hashing to trust their stat data: then
// it scans, reads the base's trees (cat-file) to hash them again (the
// tool hashes them itself: no conversion applies here), and stores
// nothing, since they hold what the base holds.
func TestDeferredCleanScanRunsOnlyStatus(t *testing.T) {
	for _, tc := range []struct {
		name    string
		later   time.Duration // how long after the edit the hashing seems to happen
		splitAt int64         // 1: the scan as two processes, as in a large tree
		want    []string
	}{
		// A tree this small is scanned by one status (splitScan), whose
		// record the stat check reads.
		{name: "settled", later: 10 * time.Second, want: nil},
		{name: "racy", later: -10 * time.Second, want: []string{"cat-file", "status"}},
		{name: "settled, scanned in two", later: 10 * time.Second, splitAt: 1, want: []string{"diff", "ls-files"}},
		{name: "racy, scanned in two", later: -10 * time.Second, splitAt: 1,
			want: []string{"cat-file", "diff", "ls-files"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, j := testRepo(t, map[string]string{"a/a.txt": "a\n", "b.txt": "b\n"})
			c.splitAt = tc.splitAt
			ctx := context.Background()
			write(t, filepath.Join(c.Repo.Top, "a/a.txt"), "a2\n")
			c.Store.Now = func() time.Time { return time.Now().Add(tc.later) }
			first, err := c.Snapshot(ctx, j)
			if err != nil {
				t.Fatal(err)
			}
			if st := c.loadState(); len(st.Pending) != 1 {
				t.Fatalf("pending %v, want a/a.txt", st.Pending)
			}
			var trace strings.Builder
			c.Git.Trace = &git.LockedWriter{W: &trace}
			again, err := c.Snapshot(ctx, j)
			c.Git.Trace = nil
			if err != nil {
				t.Fatal(err)
			}
			var ran []string
			for _, line := range strings.Split(strings.TrimSpace(trace.String()), "\n") {
				if strings.HasPrefix(line, "trace: git ") { // not the lines with times
					ran = append(ran, strings.Fields(line)[2])
				}
			}
			slices.Sort(ran) // the scan's two processes run at once
			if again.Tree != first.Tree || !slices.Equal(ran, tc.want) {
				t.Fatalf("tree %s after %s; ran %v, want %v", again.Tree, first.Tree, ran, tc.want)
			}
		})
	}
}

// TestDeferredScanModeFromDisk is TestPrehashModeFromDisk for a full
// capture that takes its few changed files without updating the private
// index (deferUpdates): with core.fileMode=false a changed executable
// that lost its bit is 100644, and a new executable is 100755, as the
// disk has them (invariant 10).
func TestDeferredScanModeFromDisk(t *testing.T) {
	g := gittest.NewRepoWith(t, map[string]string{"run.sh": "#!/bin/sh\n", "other.txt": "x\n"})
	g.Git("update-index", "--chmod=+x", "run.sh")
	g.Git("commit", "-q", "-m", "executable")
	g.Git("config", "core.fileMode", "false")
	c, j := capturerOf(t, g)
	ctx := context.Background()
	cfg, err := config.Load(ctx, c.Git)
	if err != nil {
		t.Fatal(err)
	}
	c.Cfg = cfg
	c.Store.Now = func() time.Time { return time.Now().Add(10 * time.Second) }
	write(t, filepath.Join(g.Dir, "run.sh"), "#!/bin/sh\necho changed\n")
	if err := os.Chmod(filepath.Join(g.Dir, "run.sh"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Capture(ctx, j, Options{Reason: "test"}); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(g.Dir, "other.txt"), "y\n")
	write(t, filepath.Join(g.Dir, "new.sh"), "#!/bin/sh\n")
	if err := os.Chmod(filepath.Join(g.Dir, "new.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(g.Dir, "run.sh"), "#!/bin/sh\necho again\n")
	rec, err := c.Capture(ctx, j, Options{Reason: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if st := c.loadState(); len(st.Pending) == 0 {
		t.Fatalf("no pending paths: the test wants the paths taken without updating the private index")
	}
	for name, want := range map[string]string{"run.sh": "100644 ", "other.txt": "100644 ", "new.sh": "100755 "} {
		if out := g.Git("ls-tree", rec.Tree, name); !strings.HasPrefix(out, want) {
			t.Fatalf("checkpoint %s holds %q; want mode %s", rec.ID, out, want)
		}
	}
}

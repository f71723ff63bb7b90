package capture

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// TestCaptureGroup: a group takes each request's checkpoint as a capture
// of its own would, one after another (each holds its file, names it, and
// follows the one before), leaves to its caller what needs a full scan,
// records all of them on disk, and runs a few git processes for all of
// them: one check-ignore, one cat-file, one index-pack, one update-ref,
// and no commit-tree.
func TestCaptureGroup(t *testing.T) {
	c, j := groupRepo(t, map[string]string{".gitignore": "*.log\n", "a/x/1.txt": "1\n", "a/y/2.txt": "2\n",
		"b/3.txt": "3\n", "top.txt": "top\n"})
	ctx := context.Background()
	top := c.Repo.Top
	first := j.Latest()
	edits := map[string]string{"a/x/1.txt": "one\n", "a/y/2.txt": "two\n", "b/new.txt": "new\n", "top.txt": "top 2\n"}
	for p, content := range edits {
		write(t, filepath.Join(top, p), content)
	}
	write(t, filepath.Join(top, "junk.log"), "ignored\n")
	names := []string{"a/x/1.txt", ".gitignore", "a/y/2.txt", "b/new.txt", "junk.log", "top.txt"}
	var opts []Options
	for _, n := range names {
		opts = append(opts, Options{Reason: store.ReasonTool, Tool: "Write", Session: "s", Paths: []string{n},
			Only: []string{filepath.Join(top, n)}})
	}
	var trace strings.Builder
	c.Git.Trace = &git.LockedWriter{W: &trace}
	recs, err := c.CaptureGroup(ctx, j, opts)
	c.Git.Trace = nil
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != len(names) {
		t.Fatalf("%d records for %d requests", len(recs), len(names))
	}
	if recs[1] != nil {
		t.Errorf("the group took a capture of .gitignore, which needs a full scan: %+v", recs[1])
	}
	prev := first
	for i, rec := range recs {
		if i == 1 {
			continue
		}
		if rec == nil {
			t.Fatalf("the group left %s to its caller", names[i])
		}
		if rec.Reused {
			continue // checked below
		}
		if !rec.Partial || !slices.Equal(rec.Paths, []string{names[i]}) || rec.Previous != prev.ID+" "+prev.Commit || rec.N != prev.N+1 {
			t.Errorf("%s: record %+v does not follow %s", names[i], rec, prev.ID)
		}
		held := map[string]string{}
		for p := range edits {
			out, err := c.Git.Run(ctx, git.Cmd{Args: []string{"cat-file", "-p", rec.Commit + ":" + p}})
			if err == nil {
				held[p] = string(out)
			}
		}
		for _, n := range names[:i+1] {
			if want, edited := edits[n]; edited && held[n] != want {
				t.Errorf("%s holds %s as %q, want %q", rec.ID, n, held[n], want)
			}
		}
		for _, n := range names[i+1:] {
			if want, edited := edits[n]; edited && held[n] == want {
				t.Errorf("%s holds %s as changed by a later request", rec.ID, n)
			}
		}
		if got := strings.TrimSpace(runGit(t, c, "rev-parse", c.Store.Ref(rec.N))); got != rec.Commit {
			t.Errorf("%s's ref names %q, want %s", rec.ID, got, rec.Commit)
		}
		prev = rec
	}
	if recs[4].Tree != recs[3].Tree || !recs[4].Reused {
		t.Errorf("an ignored file changed the checkpoint: %+v", recs[4])
	}
	for _, want := range []string{"check-ignore", "cat-file", "index-pack", "update-ref"} {
		if n := strings.Count(trace.String(), "trace: git "+want+" "); n != 1 {
			t.Errorf("the group ran git %s %d times, want once:\n%s", want, n, trace.String())
		}
	}
	if strings.Contains(trace.String(), "commit-tree") {
		t.Errorf("the group ran commit-tree:\n%s", trace.String())
	}

	// On disk: a fresh read of the journal has every record, and a full
	// scan finds nothing the group did not take.
	fresh, err := c.Store.Journal()
	if err != nil {
		t.Fatal(err)
	}
	if got := fresh.Latest(); got == nil || got.ID != recs[5].ID || len(fresh.Problems()) > 0 {
		t.Fatalf("the journal on disk ends with %+v (problems %q), want %s", got, fresh.Problems(), recs[5].ID)
	}
	after, err := c.Capture(ctx, fresh, Options{Reason: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if !after.Reused {
		t.Errorf("a full scan after the group found changes: %+v", after.Changes)
	}
}

func runGit(t *testing.T, c *Capturer, args ...string) string {
	t.Helper()
	out, err := c.Git.Run(context.Background(), git.Cmd{Args: args})
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestGroupsPacksRolledUp: checkpoints taken in groups write packs and no
// loose object; the group that takes the checkpoint.packEvery-th one still
// rolls the small packs up, and every checkpoint stays whole.
func TestGroupsPacksRolledUp(t *testing.T) {
	c, j := groupRepo(t, map[string]string{"a/1.txt": "1\n", "b/2.txt": "2\n"})
	ctx := context.Background()
	top := c.Repo.Top
	if _, err := c.Git.Run(ctx, git.Cmd{Args: []string{"repack", "-a", "-d", "-q"}}); err != nil {
		t.Fatal(err)
	}
	for round := range 4 {
		var opts []Options
		for _, n := range []string{"a/1.txt", "b/2.txt"} {
			write(t, filepath.Join(top, n), fmt.Sprint(n, round, "\n"))
			opts = append(opts, Options{Reason: store.ReasonTool, Paths: []string{n}, Only: []string{filepath.Join(top, n)}})
		}
		if _, err := c.CaptureGroup(ctx, j, opts); err != nil {
			t.Fatal(err)
		}
	}
	loose, packs, err := c.Git.CountObjects(ctx)
	if err != nil || loose != 0 || packs != 5 {
		t.Fatalf("after four groups: %d loose objects, %d packs (%v); want 0 and 5", loose, packs, err)
	}
	// The next group holds a checkpoint.packEvery-th checkpoint.
	c.Cfg.PackEvery = j.MaxN() + 2
	var opts []Options
	for _, n := range []string{"a/1.txt", "b/2.txt"} {
		write(t, filepath.Join(top, n), fmt.Sprint(n, "last\n"))
		opts = append(opts, Options{Reason: store.ReasonTool, Paths: []string{n}, Only: []string{filepath.Join(top, n)}})
	}
	if _, err := c.CaptureGroup(ctx, j, opts); err != nil {
		t.Fatal(err)
	}
	if loose, packs, err = c.Git.CountObjects(ctx); err != nil || loose != 0 || packs > 2 {
		t.Fatalf("after the group that was due to pack: %d loose objects, %d packs (%v); want the small ones rolled up", loose, packs, err)
	}
	runGit(t, c, "fsck", "--no-dangling", "--no-progress")
}

// TestCaptureGroupConverts: where git converts files (a text attribute
// here), a group stores what git would, as git hashes them: each file as
// `git add` stores it, and a full scan after the group finds nothing new.
func TestCaptureGroupConverts(t *testing.T) {
	c, j := groupRepo(t, map[string]string{".gitattributes": "*.txt text eol=lf\n", "a/1.txt": "1\n", "b/2.txt": "2\n"})
	ctx := context.Background()
	top := c.Repo.Top
	var opts []Options
	for _, n := range []string{"a/1.txt", "b/2.txt"} {
		write(t, filepath.Join(top, n), "crlf\r\n"+n+"\r\n")
		opts = append(opts, Options{Reason: store.ReasonTool, Paths: []string{n}, Only: []string{filepath.Join(top, n)}})
	}
	recs, err := c.CaptureGroup(ctx, j, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i, rec := range recs {
		if rec == nil {
			t.Fatalf("the group left %s to its caller", opts[i].Paths[0])
		}
		want := strings.TrimSpace(runGit(t, c, "hash-object", "--path", opts[i].Paths[0], filepath.Join(top, opts[i].Paths[0])))
		if got := strings.TrimSpace(runGit(t, c, "rev-parse", rec.Commit+":"+opts[i].Paths[0])); got != want {
			t.Errorf("%s holds %s as %s, git add stores %s", rec.ID, opts[i].Paths[0], got, want)
		}
	}
	fresh, err := c.Store.Journal()
	if err != nil {
		t.Fatal(err)
	}
	if after, err := c.Capture(ctx, fresh, Options{Reason: "test"}); err != nil || !after.Reused {
		t.Fatalf("a full scan after the group: %+v, %v", after, err)
	}
}

// groupRepo is testRepo with the runner a command has, which holds the
// trees it reads and writes: a group builds each checkpoint on the trees
// of the one before it, which only it holds until it writes them.
func groupRepo(t *testing.T, files map[string]string) (*Capturer, *store.Journal) {
	t.Helper()
	c, j := testRepo(t, files)
	c.Git.Trees = git.NewTrees()
	return c, j
}

package capture

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/gittest"
)

// TestGuessRepository: the guess is the first directory up with a `.git`
// directory holding a HEAD, symlinks resolved; a `.git` file or one git
// would pass over gives no guess.
func TestGuessRepository(t *testing.T) {
	g := gittest.NewRepoWith(t, map[string]string{"a/b/c.txt": "c\n"})
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(g.Dir, link); err != nil {
		t.Fatal(err)
	}
	worktree := filepath.Join(t.TempDir(), "wt")
	g.Git("worktree", "add", "-q", worktree)
	notGit := t.TempDir()
	os.Mkdir(filepath.Join(notGit, ".git"), 0o755) // no HEAD
	for _, tc := range []struct {
		dir, top string
	}{
		{g.Dir, g.Dir},
		{filepath.Join(g.Dir, "a/b"), g.Dir},
		{filepath.Join(link, "a"), g.Dir},
		{worktree, ""},
		{notGit, ""},
		{t.TempDir(), ""},
	} {
		top, gitDir, ok := git.GuessRepository(tc.dir)
		if ok != (tc.top != "") || top != tc.top || (ok && gitDir != filepath.Join(tc.top, ".git")) {
			t.Errorf("GuessRepository(%s) = %q %q %v, want %q", tc.dir, top, gitDir, ok, tc.top)
		}
	}
}

// earlyRunner is a command's runner in dir, with a trace of its git
// processes.
func earlyRunner(c *Capturer, dir string, trace *strings.Builder) *git.Runner {
	return &git.Runner{Dir: dir, Env: c.Git.Env, Trace: &git.LockedWriter{W: trace}, Aside: git.NewAside()}
}

// TestEarlyScanIsTheScan: a scan begun from a subdirectory before
// discovery holds the store lock, fits the repository discovery finds,
// and is the scan the capture takes: its checkpoint is the one a capture
// without it makes, and no second scan runs.
func TestEarlyScanIsTheScan(t *testing.T) {
	c, j := testRepo(t, map[string]string{"a/a.txt": "a\n", "b.txt": "b\n", "gone.txt": "g\n"})
	top := c.Repo.Top
	write(t, filepath.Join(top, "a/a.txt"), "changed\n")
	write(t, filepath.Join(top, "new/n.txt"), "new\n")
	os.Remove(filepath.Join(top, "gone.txt"))
	ctx := context.Background()
	var trace strings.Builder
	r := earlyRunner(c, filepath.Join(top, "a"), &trace)
	e := StartEarly(ctx, r.Dir, r)
	if e == nil {
		t.Fatal("no early scan in a repository with a private index")
	}
	if unlock, ok := c.Store.TryLock(); ok {
		unlock()
		t.Fatal("the store lock was free while the early scan ran")
	}
	monitor := git.NewFsmonitor("self", "hook", c.PrivateIndex())
	if !e.Fits(c.Repo, nil) || e.Fits(c.Repo, monitor) {
		t.Fatalf("Fits: without a monitor %v, with %v; want true, false", e.Fits(c.Repo, nil), e.Fits(c.Repo, monitor))
	}
	c.Early, c.Git.Trace = e, &git.LockedWriter{W: &trace}
	rec, err := c.Capture(ctx, j, Options{Reason: "test"})
	e.Release()
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(trace.String(), "trace: git status "); n != 1 {
		t.Fatalf("%d scans ran, want the early one alone:\n%s", n, trace.String())
	}
	if rec.Changes.Added != 1 || rec.Changes.Modified != 1 || rec.Changes.Deleted != 1 {
		t.Fatalf("changes %+v, want one of each", rec.Changes)
	}
	// A capture of the same tree without an early scan finds nothing new.
	again, err := c.Capture(ctx, j, Options{Reason: "test"})
	if err != nil || !again.Reused {
		t.Fatalf("a capture after: %+v %v, want a reuse", again, err)
	}
	if unlock, ok := c.Store.TryLock(); !ok {
		t.Fatal("the store lock stayed taken")
	} else {
		unlock()
	}
}

// TestEarlyScanNotBegun: no early scan where its guess could be the wrong
// repository, where the capture would scan otherwise or seed first, or
// while another process holds the lock.
func TestEarlyScanNotBegun(t *testing.T) {
	ctx := context.Background()
	c, _ := testRepo(t, map[string]string{"a.txt": "a\n"})
	top := c.Repo.Top
	var trace strings.Builder
	begins := func(r *git.Runner) bool {
		t.Helper()
		e := StartEarly(ctx, r.Dir, r)
		e.Release()
		return e != nil
	}
	if !begins(earlyRunner(c, top, &trace)) {
		t.Fatal("no early scan where one fits")
	}
	for _, name := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_CEILING_DIRECTORIES"} {
		r := earlyRunner(c, top, &trace)
		r.Env = append(slices.Clone(r.Env), name+"="+top)
		if begins(r) {
			t.Errorf("an early scan with %s set", name)
		}
	}
	unlock, ok := c.Store.TryLock()
	if !ok {
		t.Fatal("lock")
	}
	if begins(earlyRunner(c, top, &trace)) {
		t.Error("an early scan while another process held the lock")
	}
	unlock()
	// The real index rewritten: the capture compares its entries, and
	// may re-seed, before any scan. The lock is free after, and no
	// index.lock left.
	later := time.Now().Add(time.Hour)
	os.Chtimes(c.Repo.Index, later, later)
	if begins(earlyRunner(c, top, &trace)) {
		t.Error("an early scan with a re-seed due")
	}
	if unlock, ok := c.Store.TryLock(); !ok {
		t.Error("the lock held after a re-seed kept the early scan from beginning")
	} else {
		unlock()
	}
	if _, err := os.Stat(c.PrivateIndex() + ".lock"); err == nil {
		t.Error("the private index's index.lock left where a re-seed kept the early scan from beginning")
	}
	fresh := gittest.NewRepoWith(t, map[string]string{"a.txt": "a\n"})
	r := earlyRunner(c, fresh.Dir, &trace)
	r.Env = fresh.Env
	if begins(r) {
		t.Error("an early scan without a private index (a first capture seeds)")
	}
}

// TestEarlyScanAbandoned: a scan that does not fit is stopped and its
// lock let go, leaving no index.lock; one a re-seed overtakes (the real
// index changed after it began) is dropped, and the capture scans again.
func TestEarlyScanAbandoned(t *testing.T) {
	ctx := context.Background()
	c, j := testRepo(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	top := c.Repo.Top
	var trace strings.Builder
	e := StartEarly(ctx, top, earlyRunner(c, top, &trace))
	other := *c.Repo
	other.Top = filepath.Join(top, "elsewhere")
	if e == nil || e.Fits(&other, nil) {
		t.Fatalf("early scan %v fits another work tree", e)
	}
	e.Release()
	if _, err := os.Stat(c.PrivateIndex() + ".lock"); err == nil {
		t.Fatal("an abandoned scan left index.lock")
	}
	unlock, ok := c.Store.TryLock()
	if !ok {
		t.Fatal("an abandoned scan kept the lock")
	}
	unlock()

	// One that scanned (a file changed: the stat check does not vouch
	// for the tree), taken after its lock was let go (a command that
	// asks a person lets it go, and takes the lock again): scanned again.
	write(t, filepath.Join(top, "b.txt"), "b changed\n")
	if e = StartEarly(ctx, top, earlyRunner(c, top, &trace)); e == nil {
		t.Fatal("no early scan")
	}
	<-e.done
	e.Release()
	if unlock, ok = c.Store.TryLock(); !ok {
		t.Fatal("lock")
	}
	c.Early, c.Git.Trace = e, &git.LockedWriter{W: &trace}
	trace.Reset()
	if _, err := c.Snapshot(ctx, j); err != nil {
		t.Fatal(err)
	}
	unlock()
	if n := strings.Count(trace.String(), "trace: git status "); n != 1 {
		t.Fatalf("%d scans after the early one's lock was let go, want 1", n)
	}
	c.Git.Trace = nil

	write(t, filepath.Join(top, "a.txt"), "a changed\n")
	e = StartEarly(ctx, top, earlyRunner(c, top, &trace))
	if e == nil {
		t.Fatal("no early scan")
	}
	<-e.done
	if !e.scanned {
		t.Fatal("the early scan did not run")
	}
	// Once it has scanned, the real index gets a file the work tree no
	// longer has: the re-seed brings it into the private index, and only
	// a scan after that sees it gone.
	write(t, filepath.Join(top, "x.txt"), "x\n")
	runGit(t, c, "add", "x.txt")
	os.Remove(filepath.Join(top, "x.txt"))
	c.Early = e
	rec, err := c.Capture(ctx, j, Options{Reason: "test"})
	e.Release()
	if err != nil {
		t.Fatal(err)
	}
	if names := runGit(t, c, "ls-tree", "--name-only", rec.Tree); strings.Contains(names, "x.txt") {
		t.Fatalf("the checkpoint holds %q, want no x.txt", names)
	}
}

// TestEarlyQuery: where the last scan went through a monitor, what is
// begun early is the question to the hook that scan asked, under the
// store lock; the capture takes its answer instead of asking again, and
// scans nothing. A hook the configuration names that is not the one
// asked early is asked itself.
func TestEarlyQuery(t *testing.T) {
	// The question goes to watchman itself when its server answers
	// (AskUnchanged) and to the hook otherwise. No server runs under a
	// TMPDIR of the test's own (watchman keeps its socket there), so the
	// fake hooks are asked whether or not the machine runs one; without
	// --no-local, watchman answered here itself, from a crawl.
	t.Setenv("TMPDIR", t.TempDir())
	ctx := context.Background()
	c, j := testRepo(t, map[string]string{"a.txt": "a\n"})
	top := c.Repo.Top
	hook := func(name string) (path, log string) {
		dir := t.TempDir()
		path, log = filepath.Join(dir, name), filepath.Join(dir, "asked")
		script := "#!/bin/sh\necho \"$2\" >>" + log + "\nprintf 'c:1:2:3:5\\000'\n"
		if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		return path, log
	}
	asked := func(log string) int {
		b, _ := os.ReadFile(log)
		return strings.Count(string(b), "\n")
	}
	first, firstLog := hook("first")
	c.Git.Fsmonitor = git.NewFsmonitor("self", first, c.PrivateIndex())
	st := c.loadState()
	tree := st.Tree
	if st.Result != "" {
		tree = st.Result
	}
	st.Monitor = &monitorState{Token: "c:1:2:3:4", Tree: tree, Rules: c.monitorRules(), Hook: first}
	if err := c.saveState(st); err != nil {
		t.Fatal(err)
	}

	var trace strings.Builder
	e := StartEarly(ctx, top, earlyRunner(c, top, &trace))
	if e == nil || e.query == nil {
		t.Fatalf("early %+v: no question begun where the last scan had a monitor", e)
	}
	if unlock, ok := c.Store.TryLock(); ok {
		unlock()
		t.Fatal("the store lock was free while the early question ran")
	}
	if e.Fits(c.Repo, nil) || !e.Fits(c.Repo, c.Git.Fsmonitor) {
		t.Fatalf("Fits: without a monitor %v, with %v; want false, true", e.Fits(c.Repo, nil), e.Fits(c.Repo, c.Git.Fsmonitor))
	}
	c.Early, c.Git.Trace = e, &git.LockedWriter{W: &trace}
	snap, err := c.Snapshot(ctx, j)
	e.Release()
	if err != nil {
		t.Fatal(err)
	}
	if snap.Tree != tree {
		t.Errorf("snapshot %s, want the monitored scan's tree %s", snap.Tree, tree)
	}
	if n := asked(firstLog); n != 1 {
		t.Errorf("the hook was asked %d times, want once (early)", n)
	}
	if strings.Contains(trace.String(), "trace: git status") || strings.Contains(trace.String(), "trace: git diff") {
		t.Errorf("the capture scanned after the monitor named no change:\n%s", trace.String())
	}

	// The configuration names another hook now: the early answer is not
	// that hook's.
	second, secondLog := hook("second")
	e = StartEarly(ctx, top, earlyRunner(c, top, &trace))
	if e == nil || e.query == nil || e.query.hook != first {
		t.Fatalf("early %+v: want a question to the state's hook", e)
	}
	c.Git.Fsmonitor = git.NewFsmonitor("self", second, c.PrivateIndex())
	c.Early = e
	_, err = c.Snapshot(ctx, j)
	e.Release()
	if err != nil {
		t.Fatal(err)
	}
	if asked(firstLog) != 2 || asked(secondLog) != 1 {
		t.Errorf("hooks asked %d and %d times, want 2 (one early) and 1", asked(firstLog), asked(secondLog))
	}
}

// TestGlanceStateIsTheDecode: the fingerprints a glance reads from a
// saved state are the decoded state's, and a state of another shape is
// not glanced at (the early scan then decodes it).
func TestGlanceStateIsTheDecode(t *testing.T) {
	for _, st := range []indexState{
		{Real: "88877-1796331570774623149-11881128", Exclude: "240-1796296284457555870-11889329", Tree: "3e02809c"},
		{Real: "none", Exclude: "none", Monitor: &monitorState{Hook: "h", Token: "t"}},
		{},
	} {
		raw, err := json.Marshal(&st)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := glanceState(raw)
		if !ok || got.Real != st.Real || got.Exclude != st.Exclude {
			t.Errorf("glanceState(%s) = %+v, %v; want real %q, exclude %q", raw, got, ok, st.Real, st.Exclude)
		}
	}
	for _, raw := range []string{
		`{"exclude":"a","real":"b"}`,
		`{"real":"a\\u0041","exclude":"b"}`,
		`{ "real":"a","exclude":"b"}`,
		`{"real":"a"}`,
		``,
	} {
		if got, ok := glanceState([]byte(raw)); ok {
			t.Errorf("glanceState(%s) = %+v, want no glance", raw, got)
		}
	}
}

// TestEarlyStatCheck: where the last whole scan left a record for the
// stat check, what is begun early is the check, under the store lock; a
// capture takes its answer and starts no git. The answer is taken once: a
// second capture in the same command (a rewind's, after it wrote files)
// checks again, and sees what changed.
func TestEarlyStatCheck(t *testing.T) {
	ctx := context.Background()
	c, j := testRepo(t, map[string]string{"a.txt": "a\n", "d/b.txt": "b\n"})
	top := c.Repo.Top
	var trace strings.Builder
	e := StartEarly(ctx, top, earlyRunner(c, top, &trace))
	if e == nil {
		t.Fatal("nothing begun early")
	}
	<-e.done
	if e.stat == nil || !e.stat.same || e.scanned {
		t.Fatalf("early stat check %+v, scanned %v; trace:\n%s", e.stat, e.scanned, trace.String())
	}
	c.Early, c.Git.Trace = e, &git.LockedWriter{W: &trace}
	defer func() { c.Git.Trace = nil }()
	trace.Reset()
	first, err := c.Snapshot(ctx, j)
	if err != nil {
		t.Fatal(err)
	}
	if trace.Len() != 0 || first.Tree != j.Latest().Tree {
		t.Fatalf("a capture after the early check ran:\n%s\nits tree %s, the last checkpoint's %s", trace.String(), first.Tree, j.Latest().Tree)
	}
	write(t, filepath.Join(top, "d/b.txt"), "changed\n")
	again, err := c.Snapshot(ctx, j)
	e.Release()
	if err != nil {
		t.Fatal(err)
	}
	if again.Tree == first.Tree || !strings.Contains(trace.String(), "stat check: a scan is needed: d/b.txt changed") {
		t.Fatalf("the second capture took the early answer again: tree %s; trace:\n%s", again.Tree, trace.String())
	}
}

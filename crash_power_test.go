//go:build linux

package checkpoint_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/agenttest"
	"github.com/git-checkpoint/git-checkpoint/internal/crashfs"
)

// TestPowerLoss runs each operation of the product on a repository in a
// filesystem that forgets what was not synced (internal/crashfs), crashes
// it after the k-th change or sync the operation made, and checks what
// DESIGN invariant 12 promises of the disk it finds after the crash: git
// fsck is clean and HEAD, the index and the branches are as before (or,
// for --reset-head, as after); every checkpoint the journal names is
// whole; doctor reports nothing it cannot fix; each path of the tree is
// wholly old or wholly new; an interrupted rewind is refused until
// --undo, which gives back the tree from before it; and the next capture,
// hook and rewind work. docs/fault-safety.md gives the method.
//
// CRASH_POINTS is the count of crash points tried per operation (half of
// them after a sync with nothing pending kept, half after any change
// with the directories' pending entries kept), "all" for every one;
// CRASH_SEED picks them; CRASH_OPS, a regular expression, the operations. `make crash` runs it long.
func TestPowerLoss(t *testing.T) {
	if _, err := exec.LookPath("fusermount3"); err != nil {
		agenttest.Missing(t, "fusermount3 is not installed, so no filesystem can forget (.ci/run installs fuse3)")
	}
	if err := crashfs.Available(); err != nil {
		t.Skip(err) // no /dev/fuse or no seccomp here: the machine's limit
	}
	points, all := 4, false
	if v := os.Getenv("CRASH_POINTS"); v == "all" {
		all = true
	} else if v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("CRASH_POINTS=%s: a count or all", v)
		}
		points = n
	}
	seed := int64(1)
	if v := os.Getenv("CRASH_SEED"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatalf("CRASH_SEED=%s: a number", v)
		}
		seed = n
	}
	only := regexp.MustCompile(os.Getenv("CRASH_OPS"))
	w := newPowerWorld(t)
	total, lost := 0, 0
	for _, op := range powerOps(w.repo) {
		if !only.MatchString(op.name) {
			continue
		}
		tried, bad := w.crashEach(t, op, points, all, rand.New(rand.NewSource(seed)))
		total += tried
		lost += bad
	}
	t.Logf("%d crash points, %d lost", total, lost)
	fmt.Printf("%d crash points, %d lost\n", total, lost)
	if lost > 0 {
		t.Fail()
	}
}

// tempName is a temporary file's name as install writes one beside a
// settings file (agents.writeAtomic).
var tempName = regexp.MustCompile(`(^|/)\.[^/]+\.tmp[0-9]+$`)

// powerOp is one operation crashed: pre runs first, uncrashed, on the
// common base; run is what is crashed.
type powerOp struct {
	name      string
	pre       [][]string
	run       []string
	stdin     string
	headMoves bool // --reset-head: HEAD, index and branch may be as after
	rewind    bool // an interrupted one must be refused, then undone
	undo      bool // the operation is itself an --undo: undoing finishes it
	// remote, when set, is a bare repository on the mount the operation
	// changes: after a crash git fsck must find it whole (its refs name
	// only objects that are there), as the user's.
	remote string
	// again: a temporary file the operation leaves in the tree when cut
	// short (litter) is no loss if its next run removes it, which the
	// check then runs and requires.
	again bool
	// ran, when set, checks that the reference run did what the operation
	// is there to crash (a roll-up that packed nothing crashes nothing).
	ran func(t *testing.T, w *powerWorld)
}

func claudeEvent(repo, event, extra string) string {
	return fmt.Sprintf(`{"session_id": "s1", "transcript_path": "", "cwd": %q, "hook_event_name": %q%s}`, repo, event, extra)
}

func powerOps(repo string) []powerOp {
	remote := filepath.Join(filepath.Dir(repo), "remote.git")
	// A bare remote on the same mount, holding the branch and this tree's
	// store; fetch needs another tree's store there too.
	withRemote := [][]string{
		{"git", "init", "-q", "--bare", remote},
		{"git", "remote", "add", "origin", remote},
		{"git", "push", "-q", "origin", "main"},
	}
	other := append(append([][]string{}, withRemote...),
		[]string{"git", "checkpoint", "push", "origin"},
		[]string{"sh", "-c", "git clone -q ../remote.git ../other && cd ../other && echo o > o.txt && git checkpoint -m other && git checkpoint push origin"})
	converting := [][]string{
		{"sh", "-c", `printf '*.txt text\n' > .gitattributes && printf 'a four\r\n' > a.txt`},
		{"git", "checkpoint", "-m", "attributes"},
		{"sh", "-c", `printf 'a five\r\n' > a.txt && printf 'u two\r\n' > u.txt`},
	}
	tool := claudeEvent(repo, "PostToolUse", fmt.Sprintf(`, "tool_name": "Write", "tool_input": {"file_path": %q, "content": "x\n"}, "tool_response": {"type": "create"}`, filepath.Join(repo, "tool.txt")))
	return []powerOp{
		{name: "capture", run: []string{"git", "checkpoint", "-m", "crashed"}},
		// A capture stopped after its ref, before its sync (its objects,
		// ref and the private index's state left unsynced), then the next
		// one, which adopts that ref and builds on that state: it must
		// sync them too (git.Written's mark).
		{name: "capture after one stopped before its sync", run: []string{"sh", "-c",
			`GIT_CHECKPOINT_FAILPOINT=ref git checkpoint -m stopped; echo more >> a.txt && git checkpoint -m next`}},
		// The same, killed before its ref: nothing to adopt, but the next
		// capture builds on its objects and the private index's state,
		// unsynced, which its mark says (git.Written).
		{name: "capture after one killed before its ref", run: []string{"sh", "-c",
			`GIT_CHECKPOINT_FAILPOINT=saved:kill git checkpoint -m killed; git checkpoint -m next`}},
		// Only a deleted file, no new content: its few trees are written
		// loose, not into a pack.
		{name: "partial capture of a deletion", pre: [][]string{{"git", "checkpoint", "-m", "before"}, {"rm", "dir/d.txt"}}, run: []string{"git", "checkpoint", "--changed=dir/d.txt"}},
		{name: "partial capture", run: []string{"git", "checkpoint", "--changed=a.txt", "--changed=u.txt"}},
		// git hashes what its attributes convert: the blobs are its own.
		{name: "partial capture where git converts", pre: converting, run: []string{"git", "checkpoint", "--changed=a.txt", "--changed=u.txt"}},
		{name: "rewind where git converts", pre: converting, run: []string{"git", "rewind", "k1", "--yes", "--outside=overwrite"}, rewind: true},
		{name: "hook turn start", run: []string{"git", "checkpoint", "hook", "claude"}, stdin: claudeEvent(repo, "UserPromptSubmit", `, "prompt": "crash it"`)},
		{name: "hook tool", pre: [][]string{{"sh", "-c", "echo x > tool.txt"}}, run: []string{"git", "checkpoint", "hook", "claude"}, stdin: tool},
		{name: "hook turn end", run: []string{"git", "checkpoint", "hook", "claude"}, stdin: claudeEvent(repo, "Stop", `, "stop_hook_active": false`)},
		{name: "rewind", run: []string{"git", "rewind", "k1", "--yes", "--outside=overwrite"}, rewind: true},
		// A directory whose only file goes and another comes: the rewind
		// removes it, emptied, and makes it again. The model keys
		// directories by path, so it cannot tell a sync of the removed one
		// from one of the new (TestRewindSyncOrder does); this runs that
		// path at every crash point all the same.
		{name: "rewind that empties and refills a directory", pre: [][]string{{"sh", "-c",
			"mkdir -p e && echo y > e/y && git checkpoint -m with-y && rm e/y && echo x > e/x && git checkpoint -m with-x"}},
			run: []string{"git", "rewind", "k3", "--yes", "--outside=overwrite"}, rewind: true},
		{name: "rewind --reset-head", run: []string{"git", "rewind", "k1", "--yes", "--outside=overwrite", "--reset-head"}, rewind: true, headMoves: true},
		{name: "rewind --undo", pre: [][]string{{"git", "rewind", "k1", "--yes", "--outside=overwrite"}}, run: []string{"git", "rewind", "--undo", "--yes"}, rewind: true, undo: true},
		{name: "prune", pre: [][]string{{"git", "config", "checkpoint.keep", "1"}, {"git", "config", "checkpoint.keepFor", "0s"}}, run: []string{"git", "checkpoint", "prune"}},
		// The base has two checkpoints: the capture's is the third, so
		// checkpoint.packEvery=3 makes it roll the loose objects up.
		{name: "pack roll-up", pre: [][]string{{"git", "config", "checkpoint.packEvery", "3"}}, run: []string{"git", "checkpoint", "-m", "packed"}, ran: packedAll},
		{name: "install", run: []string{"git", "checkpoint", "install", "claude", "--scope", "project"}, again: true},
		{name: "uninstall", pre: [][]string{{"git", "checkpoint", "install", "claude", "--scope", "project"}}, run: []string{"git", "checkpoint", "uninstall", "claude", "--scope", "project"}, again: true},
		{name: "push", pre: withRemote, run: []string{"git", "checkpoint", "push", "origin"}, remote: remote},
		{name: "fetch", pre: other, run: []string{"git", "checkpoint", "fetch", "origin"}, remote: remote},
	}
}

// powerWorld is the mount, its live directory, and the base image every
// operation starts from.
type powerWorld struct {
	tmp, live, mnt, base, repo string
	env                        []string
	fs                         *crashfs.FS
	finishedByDoctor           int // crash points that left a prune for doctor --fix to finish
	gitLocks                   int // crash points that left git's locks in .git
	littered                   int // crash points that left a temporary file the next run removed
}

// removeGitLocks removes the lock files git keeps beside HEAD, the index
// and the branches, as a person does when git names one after a crash,
// and says whether there was one.
func (w *powerWorld) removeGitLocks(t *testing.T) bool {
	t.Helper()
	locks, _ := filepath.Glob(filepath.Join(w.repo, ".git", "*.lock"))
	heads, _ := filepath.Glob(filepath.Join(w.repo, ".git", "refs", "heads", "*.lock"))
	for _, l := range append(locks, heads...) {
		if err := os.Remove(l); err != nil {
			t.Fatal(err)
		}
	}
	return len(locks)+len(heads) > 0
}

func newPowerWorld(t *testing.T) *powerWorld {
	t.Helper()
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := &powerWorld{tmp: tmp, live: filepath.Join(tmp, "live"), mnt: filepath.Join(tmp, "mnt"), base: filepath.Join(tmp, "base")}
	w.repo = filepath.Join(w.mnt, "repo")
	// install's records of what it changed live on the same disk as the
	// settings it changed, and are reset with them before each crash.
	w.env = gitEnv(t, "CLAUDE_PROJECT_DIR="+w.repo, "XDG_STATE_HOME="+filepath.Join(w.mnt, "state"))
	for _, d := range []string{w.live, w.mnt} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if w.fs, err = crashfs.Mount(w.live, w.mnt); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.fs.Unmount() })
	// The base: a commit, k1 of it, a second commit (so --reset-head has
	// somewhere to go back from), and edits since: changed, deleted and
	// new files, one in a new directory.
	for name, content := range map[string]string{"a.txt": "a\n", "b.txt": "b\n", "dir/c.txt": "c\n", "dir/d.txt": "d\n"} {
		writeFile(t, filepath.Join(w.repo, name), content, 0o644)
	}
	w.must(t, "git", "init", "-q", "-b", "main")
	w.must(t, "git", "add", ".")
	w.must(t, "git", "commit", "-q", "-m", "one")
	w.must(t, "git", "checkpoint", "-m", "start")
	writeFile(t, filepath.Join(w.repo, "a.txt"), "a two\n", 0o644)
	w.must(t, "git", "commit", "-q", "-am", "two")
	writeFile(t, filepath.Join(w.repo, "b.txt"), "b changed\n", 0o755)
	os.Remove(filepath.Join(w.repo, "dir/c.txt"))
	writeFile(t, filepath.Join(w.repo, "new/n.txt"), "n\n", 0o644)
	writeFile(t, filepath.Join(w.repo, "u.txt"), "u\n", 0o644)
	w.must(t, "git", "checkpoint", "-m", "edits")
	writeFile(t, filepath.Join(w.repo, "a.txt"), "a three\n", 0o644)
	w.save(t, w.base)
	return w
}

// exec runs a command in the repository through the filesystem (a child
// started in the mount could deadlock the test: crashfs.Run).
func (w *powerWorld) exec(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	cmd, stdout, stderr := command(w.repo, w.env, args[0], args[1:]...)
	cmd.Stdin = strings.NewReader(stdin)
	err := w.fs.Run(cmd)
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	if err != nil {
		r.code = cmd.ProcessState.ExitCode()
		if r.code == 0 {
			t.Fatalf("%s: %v", strings.Join(args, " "), err)
		}
	}
	return r
}

// must runs a command in the repository, uncrashed, and fails the test
// unless it succeeds.
func (w *powerWorld) must(t *testing.T, args ...string) string {
	t.Helper()
	r := w.exec(t, "", args...)
	if r.code != 0 {
		t.Fatalf("%s: exit %d\n%s%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r.stdout
}

// save makes everything durable and copies the image to dir.
func (w *powerWorld) save(t *testing.T, dir string) {
	t.Helper()
	if err := w.fs.Unmount(); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(dir)
	if out, err := exec.Command("cp", "-a", w.live, dir).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
	w.remount(t)
}

// reset makes the image dir's again.
func (w *powerWorld) reset(t *testing.T, dir string) {
	t.Helper()
	if err := w.fs.Unmount(); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(w.live)
	if out, err := exec.Command("cp", "-a", dir, w.live).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
	w.remount(t)
}

func (w *powerWorld) remount(t *testing.T) {
	t.Helper()
	fs, err := crashfs.Mount(w.live, w.mnt)
	if err != nil {
		t.Fatal(err)
	}
	w.fs = fs
}

// crashed runs op's command through the filesystem, so that its syncfs
// calls count.
func (w *powerWorld) crashed(t *testing.T, op powerOp) result {
	t.Helper()
	cmd, stdout, stderr := command(w.repo, w.env, op.run[0], op.run[1:]...)
	cmd.Stdin = strings.NewReader(op.stdin)
	// A command that hangs past its crash point is killed: a power loss
	// would have ended it too. The test says so.
	timer := time.AfterFunc(time.Minute, func() {
		t.Logf("%s hangs after %s; killed", op.name, w.fs.Last())
		cmd.Process.Kill()
	})
	err := w.fs.Run(cmd)
	timer.Stop()
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	if err != nil {
		r.code = cmd.ProcessState.ExitCode()
	}
	return r
}

// repoState is what a capture must never change and a rewind only with
// --reset-head: HEAD, the branches, tags and stash, the index's bytes (a
// capture) or its entries (a rewind: a --reset-head or its --undo writes
// the index, with the stat data of files a run wrote anew).
func (w *powerWorld) repoState(t *testing.T, entries bool) string {
	t.Helper()
	if entries {
		ls := w.exec(t, "", "git", "ls-files", "-s").stdout
		head := w.exec(t, "", "git", "symbolic-ref", "-q", "HEAD").stdout
		id := w.exec(t, "", "git", "rev-parse", "-q", "--verify", "HEAD").stdout
		refs := w.exec(t, "", "git", "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads", "refs/tags", "refs/stash").stdout
		return fmt.Sprintf("HEAD %s %s%sindex entries:\n%s", strings.TrimSpace(head), id, refs, ls)
	}
	head := w.exec(t, "", "git", "symbolic-ref", "-q", "HEAD").stdout
	id := w.exec(t, "", "git", "rev-parse", "-q", "--verify", "HEAD").stdout
	refs := w.exec(t, "", "git", "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads", "refs/tags", "refs/stash").stdout
	b, _ := os.ReadFile(filepath.Join(w.repo, ".git", "index"))
	return fmt.Sprintf("HEAD %s %s%sindex %x", strings.TrimSpace(head), id, refs, sha256.Sum256(b))
}

// crashEach crashes op at its crash points and returns how many it tried
// and how many lost something.
func (w *powerWorld) crashEach(t *testing.T, op powerOp, points int, all bool, rng *rand.Rand) (tried, lost int) {
	t.Helper()
	opBase := filepath.Join(w.tmp, "base-"+strings.ReplaceAll(op.name, " ", "_"))
	w.reset(t, w.base)
	for _, pre := range op.pre {
		w.must(t, pre...)
	}
	w.save(t, opBase)
	before, oldTree := w.repoState(t, op.rewind), manifest(t, w.repo)
	endedBefore := w.rewindsEnded(t)

	// The reference run: its operations are the crash points.
	if r := w.crashed(t, op); r.code != 0 {
		t.Fatalf("%s: exit %d\n%s%s", op.name, r.code, r.stdout, r.stderr)
	}
	log := w.fs.Log()
	if op.ran != nil {
		op.ran(t, w)
	}
	after, newTree := w.repoState(t, op.rewind), manifest(t, w.repo)

	var drops, entries []int
	drops = append(drops, 0)
	for i, o := range log {
		if crashfs.IsSync(o) {
			drops = append(drops, i+1)
		}
		entries = append(entries, i+1)
	}
	if !all {
		rng.Shuffle(len(drops), func(i, j int) { drops[i], drops[j] = drops[j], drops[i] })
		rng.Shuffle(len(entries), func(i, j int) { entries[i], entries[j] = entries[j], entries[i] })
		nd := min(len(drops), (points+1)/2)
		drops, entries = drops[:nd], entries[:min(len(entries), points-nd)]
		sort.Ints(drops)
		sort.Ints(entries)
	}
	type point struct {
		k    int
		mode crashfs.Mode
	}
	var pts []point
	for _, k := range drops {
		pts = append(pts, point{k, crashfs.Drop})
	}
	for _, k := range entries {
		pts = append(pts, point{k, crashfs.Entries})
	}
	var lostAt []string
	for _, p := range pts {
		w.reset(t, opBase)
		w.fs.CrashAfter(p.k, p.mode)
		w.crashed(t, op)
		at := "the start"
		if p.k > 0 {
			at = log[p.k-1]
		}
		if err := w.fs.Crash(); err != nil {
			t.Fatal(err)
		}
		w.reboot(t)
		problems := w.check(t, op, before, after, oldTree, newTree, endedBefore)
		tried++
		if len(problems) > 0 && os.Getenv("CRASH_LOG") != "" {
			problems = append(problems, "operations up to the crash:\n      "+strings.Join(log[max(0, p.k-12):p.k], "\n      "))
		}
		if len(problems) > 0 {
			lost++
			lostAt = append(lostAt, fmt.Sprintf("  %d (%s) after %s:\n    %s", p.k, p.mode, at, strings.Join(problems, "\n    ")))
		}
	}
	t.Logf("%s: %d operations, %d syncs; crashed at %d points (%d after a sync, nothing pending kept; %d after a change, pending entries kept): %d lost",
		op.name, len(log), countSyncs(log), tried, len(drops), len(entries), lost)
	if w.gitLocks > 0 {
		t.Logf("%s: at %d of them git's lock of HEAD, the index or a branch was left, and removed by hand as git says before --undo", op.name, w.gitLocks)
		w.gitLocks = 0
	}
	if w.littered > 0 {
		t.Logf("%s: at %d of them a temporary file was left beside what it writes, for its next run to remove", op.name, w.littered)
		w.littered = 0
	}
	if w.finishedByDoctor > 0 {
		t.Logf("%s: at %d of them a prune was cut short, and doctor --fix finished it", op.name, w.finishedByDoctor)
		w.finishedByDoctor = 0
	}
	for _, l := range lostAt {
		t.Log(l)
	}
	return tried, lost
}

// packedAll fails the test unless the capture left no loose object: the
// roll-up ran.
func packedAll(t *testing.T, w *powerWorld) {
	t.Helper()
	out := w.must(t, "git", "count-objects", "-v")
	if !strings.Contains(out, "count: 0\n") {
		t.Fatalf("the capture did not roll the loose objects up:\n%s", out)
	}
}

// reboot dates the lock files the crash left under .git back by the
// minutes a machine takes to come back after a power loss: the image
// crashfs writes gives every file the time of the crash, where a disk
// keeps each lock's time from before it, and the store removes a lock
// of its own only once it is older than a git could still be writing it
// (store.StaleAfter; a minute for packed-refs.lock). The user's locks
// (HEAD.lock, index.lock, a branch's) are dated back too; the tool never
// removes those, whatever their age.
func (w *powerWorld) reboot(t *testing.T) {
	t.Helper()
	old := time.Now().Add(-5 * time.Minute)
	filepath.WalkDir(filepath.Join(w.repo, ".git"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".lock") {
			os.Chtimes(p, old, old)
		}
		return nil
	})
}

func countSyncs(log []string) int {
	n := 0
	for _, o := range log {
		if crashfs.IsSync(o) {
			n++
		}
	}
	return n
}

// check is every invariant after a crash; it returns what failed.
func (w *powerWorld) check(t *testing.T, op powerOp, before, after string, oldTree, newTree map[string]string, endedBefore int) []string {
	t.Helper()
	var problems []string
	bad := func(f string, a ...any) { problems = append(problems, fmt.Sprintf(f, a...)) }
	git := func(args ...string) result { return w.exec(t, "", append([]string{"git"}, args...)...) }

	if r := git("fsck", "--full", "--no-dangling"); r.code != 0 {
		bad("git fsck: exit %d: %s", r.code, firstLines(r.stdout+r.stderr))
	}
	if op.remote != "" {
		if r := git("-C", op.remote, "fsck", "--full", "--no-dangling"); r.code != 0 {
			bad("git fsck of the remote: exit %d: %s", r.code, firstLines(r.stdout+r.stderr))
		}
	}
	state := w.repoState(t, op.rewind)
	if missing := w.journalIncomplete(t); missing != "" {
		bad("the journal names a checkpoint that is not whole: %s", missing)
	}
	now := manifest(t, w.repo)
	var litter []string
	for p, v := range now {
		if v != oldTree[p] && v != newTree[p] {
			if op.again && oldTree[p] == "" && newTree[p] == "" && tempName.MatchString(p) {
				litter = append(litter, p)
				continue
			}
			bad("%s is neither wholly old nor wholly new: %q (old %q, new %q)", p, v, oldTree[p], newTree[p])
		}
	}
	if len(litter) > 0 {
		w.littered++
		if r := w.exec(t, op.stdin, op.run...); r.code != 0 {
			bad("%s again, after a crash that left %s: exit %d: %s", op.name, litter[0], r.code, firstLines(r.stderr))
		}
		for _, p := range litter {
			if _, err := os.Lstat(filepath.Join(w.repo, p)); err == nil {
				bad("%s, left by the crash, is still there after %s ran again", p, op.name)
			}
		}
		now = manifest(t, w.repo)
		for p, v := range now {
			if v != newTree[p] {
				bad("%s after %s ran again: %q, want the new %q", p, op.name, v, newTree[p])
			}
		}
		oldTree = newTree // what the next run leaves is the new tree
	}
	for p := range oldTree {
		if _, ok := now[p]; !ok && newTree[p] != "" {
			bad("%s is missing, though old and new both have it", p)
		}
	}
	// A rewind whose end is on disk has its files there too: none may come
	// back as it was, nor go, after rewind_ended.
	if op.rewind && w.rewindsEnded(t) > endedBefore {
		if diffs := treeDiff(newTree, now); diffs != "" {
			bad("the rewind is journaled as ended, but the tree is not the one it wrote: %s", diffs)
		}
	}
	if len(problems) > 0 {
		return problems
	}

	if op.rewind {
		var st struct {
			Interrupted *json.RawMessage `json:"interrupted_rewind"`
		}
		r := git("checkpoint", "status", "--json")
		if err := json.Unmarshal([]byte(r.stdout), &st); r.code != 0 || err != nil {
			bad("status: exit %d, %v: %s", r.code, err, firstLines(r.stderr))
		} else if st.Interrupted != nil && string(*st.Interrupted) != "null" {
			if r := git("rewind", "k1", "--yes", "--outside=overwrite"); r.code != 5 {
				bad("a rewind after an interrupted one: exit %d, want 5 (refused): %s", r.code, firstLines(r.stderr))
			}
			r := git("rewind", "--undo", "--yes")
			if r.code != 0 && w.removeGitLocks(t) {
				// git's own locks in the user's repository, left by the
				// crash: git says to remove them, and the tool never does
				// (it cannot know no git of the person's runs; see
				// docs/fault-safety.md, "Found and left").
				w.gitLocks++
				r = git("rewind", "--undo", "--yes")
			}
			if r.code != 0 {
				bad("rewind --undo after the crash: exit %d: %s", r.code, firstLines(r.stderr))
			}
			want := oldTree
			if op.undo {
				want = newTree
			}
			if diffs := treeDiff(want, manifest(t, w.repo)); diffs != "" {
				bad("the tree after --undo is not the tree from before the rewind: %s", diffs)
			}
			// --undo puts back HEAD and the index too.
			if state = w.repoState(t, op.rewind); state != before && !op.undo {
				bad("HEAD, branches or index after --undo are not as before the rewind:\n%s\nwas:\n%s", state, before)
			}
			state = before
		}
	}
	if state != before && !(op.headMoves && state == after) {
		bad("HEAD, branches or index changed:\n%s\nwas:\n%s", state, before)
	}
	// doctor reports nothing it cannot fix (an interrupted rewind is
	// --undo's, above).
	if r := git("checkpoint", "doctor"); r.code != 0 {
		f := git("checkpoint", "doctor", "--fix")
		if strings.Contains(f.stdout, "finished a prune cut short") {
			w.finishedByDoctor++
		}
		if f.code != 0 {
			bad("doctor --fix: exit %d: %s", f.code, firstLines(f.stdout+f.stderr))
		} else if r := git("checkpoint", "doctor"); r.code != 0 {
			bad("doctor after --fix: exit %d: %s", r.code, firstLines(r.stdout+r.stderr))
		}
	}

	// The next capture, hook and rewind work.
	writeFile(t, filepath.Join(w.repo, "next.txt"), "next\n", 0o644)
	next := git("checkpoint", "-m", "next")
	if next.code != 0 {
		bad("the next capture: exit %d: %s", next.code, firstLines(next.stderr))
	}
	writeFile(t, filepath.Join(w.repo, "hooked.txt"), "hooked\n", 0o644)
	tool := claudeEvent(w.repo, "PostToolUse", fmt.Sprintf(`, "tool_name": "Write", "tool_input": {"file_path": %q, "content": "hooked\n"}, "tool_response": {"type": "create"}`, filepath.Join(w.repo, "hooked.txt")))
	if r := w.exec(t, tool, "git", "checkpoint", "hook", "claude"); r.code != 0 {
		bad("the next hook: exit %d: %s", r.code, firstLines(r.stderr))
	}
	if r := git("checkpoint", "list", "-n", "1"); r.code != 0 || !strings.Contains(r.stdout, "tool") {
		bad("the next hook made no checkpoint: %s", firstLines(r.stdout+r.stderr))
	}
	id, _, _ := strings.Cut(next.stdout, " ")
	if r := git("rewind", strings.TrimSpace(id), "--yes", "--outside=overwrite"); r.code != 0 || manifest(t, w.repo)["hooked.txt"] != "" {
		bad("the next rewind, to %s, before hooked.txt: exit %d: %s", id, r.code, firstLines(r.stderr))
	}
	if r := git("fsck", "--full", "--no-dangling"); r.code != 0 {
		bad("git fsck after the next commands: exit %d: %s", r.code, firstLines(r.stdout+r.stderr))
	}
	return problems
}

// journalIncomplete names the first checkpoint the journal records whose
// commit, trees or blobs cannot be read, or returns "".
func (w *powerWorld) journalIncomplete(t *testing.T) string {
	t.Helper()
	f, err := os.Open(filepath.Join(w.repo, ".git", "checkpoints", "journal.jsonl"))
	if err != nil {
		return ""
	}
	defer f.Close()
	var commits []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var rec struct {
			ID     string `json:"id"`
			Commit string `json:"commit"`
			Reused bool   `json:"reused"`
		}
		if json.Unmarshal(sc.Bytes(), &rec) == nil && rec.Commit != "" {
			commits = append(commits, rec.Commit)
		}
	}
	for _, c := range commits {
		r := w.exec(t, "", "git", "rev-list", "--objects", "--no-walk", "--missing=print", c)
		if r.code != 0 || strings.Contains("\n"+r.stdout, "\n?") {
			return fmt.Sprintf("%s: exit %d: %s", c, r.code, firstLines(r.stderr+r.stdout))
		}
	}
	return ""
}

func treeDiff(want, got map[string]string) string {
	var d []string
	for p, v := range want {
		if got[p] != v {
			d = append(d, fmt.Sprintf("%s: %q, want %q", p, got[p], v))
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			d = append(d, p+": should not be there")
		}
	}
	sort.Strings(d)
	return strings.Join(d[:min(len(d), 5)], "; ")
}

func firstLines(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[:min(len(lines), 4)], " | ")
}

// rewindsEnded counts the rewind_ended lines of the journal on the mount.
func (w *powerWorld) rewindsEnded(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(w.repo, ".git", "checkpoints", "journal.jsonl"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return bytes.Count(b, []byte(`"type":"rewind_ended"`))
}

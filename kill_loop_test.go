package checkpoint_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

var (
	killCount = flag.Int("kill.count", 60, "processes TestKillLoop kills")
	killSeed  = flag.Uint64("kill.seed", 0, "TestKillLoop's random seed (0: a new one, logged)")
)

// TestKillLoop kills git-checkpoint and git-rewind at random moments, as
// an agent's hook timeout, a closed terminal or the OOM killer do, and
// checks invariant 11 after each kill: a killed process never leaves the
// store unusable. The commands killed are the ones that write the store:
// a capture, a Claude Code hook (a tool call's Write, a prompt, a turn's
// end), a rewind, its --undo and a prune. Each is killed with SIGKILL
// alone, with SIGKILL to its process group (it and every git it runs,
// which then leaves git's own lock files), or with SIGTERM to its process
// group (what Claude Code's hook timeout sends), after a random part of
// the time the same command takes when it is left alone. After each kill:
// the next capture works; an interrupted rewind is undone by --undo; a
// rewind to a random checkpoint is exact and its --undo gives back the
// tree before it; doctor --fix leaves no problem; and every checkpoint
// the journal names has a plan (a dry run). Time is not judged.
//
// -kill.count sets how many processes are killed (60 by default, for
// CI); -kill.seed repeats a run, whose seed a failure logs.
func TestKillLoop(t *testing.T) {
	seed := *killSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("repeat with: go test -run TestKillLoop -kill.seed %d -kill.count %d .", seed, *killCount)
		}
	})
	k := newKillLoop(t, seed)
	for k.kills < *killCount {
		if k.runs > 20*(*killCount)+100 {
			t.Fatalf("only %d of %d runs were killed before they ended", k.kills, k.runs)
		}
		k.step()
	}
	k.planAll()
	must(t, 0, k.dir, k.env, "git", "fsck", "--connectivity-only", "--no-dangling")
	t.Logf("seed %d: %d processes killed in %d runs (%s); %d kills left a lock file behind (%s)",
		seed, k.kills, k.runs, k.counts(k.byOp), k.lockKills, k.counts(k.locksLeft))
	t.Logf("by signal: %s; a rewind interrupted %d times, each undone", k.counts(k.bySignal), k.interrupted)
}

// killLoop is the state of TestKillLoop.
type killLoop struct {
	t          *testing.T
	rng        *rand.Rand
	dir, state string
	env        []string
	bin        map[string]string // git-checkpoint and git-rewind on PATH
	took       map[string]time.Duration
	files      int // the next new file's number
	// planned holds the checkpoints a dry run has planned after a kill.
	planned map[string]bool

	runs, kills, lockKills, interrupted int
	byOp, bySignal, locksLeft           map[string]int
}

func newKillLoop(t *testing.T, seed uint64) *killLoop {
	dir := filepath.Join(t.TempDir(), "tree")
	k := &killLoop{t: t, rng: rand.New(rand.NewPCG(seed, seed>>32)), dir: dir, state: filepath.Join(dir, ".git", "checkpoints"),
		env: gitEnv(t, "CLAUDE_PROJECT_DIR="+dir), bin: map[string]string{}, planned: map[string]bool{}, took: map[string]time.Duration{},
		byOp: map[string]int{}, bySignal: map[string]int{}, locksLeft: map[string]int{}}
	for _, name := range []string{"git-checkpoint", "git-rewind"} {
		path, err := exec.LookPath(name)
		if err != nil {
			t.Fatal(err)
		}
		k.bin[name] = path
	}
	// Two hundred files in ten directories, so that a capture or a rewind
	// runs long enough, and with enough git processes, to be killed
	// half way.
	for d := 0; d < 10; d++ {
		for f := 0; f < 20; f++ {
			writeFile(t, filepath.Join(dir, fmt.Sprintf("d%d/f%02d.txt", d, f)), fmt.Sprintf("d%d/f%02d\n", d, f), 0o644)
		}
	}
	writeFile(t, filepath.Join(dir, "run.sh"), "#!/bin/sh\necho run\n", 0o755)
	must(t, 0, dir, k.env, "git", "init", "-q", "-b", "main")
	must(t, 0, dir, k.env, "git", "add", ".")
	must(t, 0, dir, k.env, "git", "commit", "-q", "-m", "two hundred files")
	// Retention small enough that the checkpoints stay few: every one is
	// dry-run after each kill, and prune has something to delete.
	for _, kv := range [][2]string{{"checkpoint.keep", "4"}, {"checkpoint.keepFor", "0s"}, {"checkpoint.keepSafety", "0s"}} {
		must(t, 0, dir, k.env, "git", "config", kv[0], kv[1])
	}
	must(t, 0, dir, k.env, "git", "checkpoint", "-m", "start")
	return k
}

// step changes the tree, runs one command and kills it at a random
// moment; when it was killed, it checks that everything still works.
func (k *killLoop) step() {
	t := k.t
	k.edit()
	op, args, stdin := k.pick()
	name := "git-checkpoint"
	if op == "rewind" || op == "undo" {
		name = "git-rewind"
	}
	cmd, stdout, stderr := command(k.dir, k.env, k.bin[name], args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	est := k.took[op]
	if est == 0 {
		est = 100 * time.Millisecond
	}
	delay := time.Duration(k.rng.Int64N(int64(est) + 1))
	signal := []string{"SIGKILL", "SIGKILL-group", "SIGTERM-group"}[k.rng.IntN(3)]
	started := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	k.runs++
	time.Sleep(delay)
	switch signal {
	case "SIGKILL":
		cmd.Process.Signal(syscall.SIGKILL)
	case "SIGKILL-group":
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	case "SIGTERM-group":
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	}
	r := finish(t, cmd, stdout, stderr)
	if !r.signaled {
		// It ended before the signal: its time is what the next kill of
		// the same command aims within.
		k.took[op] = (k.took[op] + time.Since(started)) / 2
		// A prune after one killed while it deleted refs finds git's
		// packed-refs.lock young: it keeps those refs for later and
		// succeeds (store.refDeletable).
		if r.code != 0 && r.code != 3 && r.code != 5 {
			t.Fatalf("%s %s, not killed, exit %d:\n%s%s", name, strings.Join(args, " "), r.code, r.stdout, r.stderr)
		}
		return
	}
	k.kills++
	k.byOp[op]++
	k.bySignal[signal]++
	waitGroupGone(t, cmd.Process.Pid)
	if locks := k.locks(); len(locks) > 0 {
		k.lockKills++
		for _, l := range slices.Compact(locks) {
			k.locksLeft[l]++
		}
	}
	k.check(fmt.Sprintf("kill %d (%s of %s %s after %v)", k.kills, signal, name, strings.Join(args, " "), delay.Round(time.Millisecond)))
}

// waitGroupGone waits until no process is left in the process group pgid:
// a SIGKILL of the command alone leaves the git it started running, and
// a `git update-ref --stdin` that already read its updates applies them
// after its parent died (a killed prune's deletions). What is checked
// after a kill is the repository once what the command started has
// ended; a person's next command could meet that git still running, and
// would be told plainly that the ref it wanted was deleted. Zombies an
// init that does not reap would keep it waiting: after ten seconds it
// goes on and says so.
func waitGroupGone(t *testing.T, pgid int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
	}
	t.Logf("process group %d still had processes ten seconds after the kill", pgid)
}

// edit changes the tree as an agent would: a few files changed, one
// added, one deleted, and now and then a hundred and twenty at once (the
// private index then takes them).
func (k *killLoop) edit() {
	t := k.t
	for i := k.rng.IntN(4); i > 0; i-- {
		writeFile(t, filepath.Join(k.dir, fmt.Sprintf("d%d/f%02d.txt", k.rng.IntN(10), k.rng.IntN(20))), fmt.Sprintf("edit %d\n", k.rng.Int()), 0o644)
	}
	k.files++
	writeFile(t, filepath.Join(k.dir, "new", fmt.Sprintf("n%d.txt", k.files)), "new\n", 0o644)
	if names, _ := filepath.Glob(filepath.Join(k.dir, "new", "*.txt")); len(names) > 3 {
		os.Remove(names[k.rng.IntN(len(names))])
	}
	switch k.rng.IntN(8) {
	case 0:
		for i := 0; i < 120; i++ {
			writeFile(t, filepath.Join(k.dir, "many", fmt.Sprintf("m%03d.txt", i)), fmt.Sprintf("%d %d\n", i, k.rng.Int()), 0o644)
		}
	case 1:
		os.RemoveAll(filepath.Join(k.dir, "many"))
	}
}

// pick chooses the command to kill: its name in the counts, its
// arguments, and its input.
func (k *killLoop) pick() (op string, args []string, stdin []byte) {
	switch k.rng.IntN(7) {
	case 0, 1:
		return "capture", []string{"-m", "loop"}, nil
	case 2:
		event := []string{"UserPromptSubmit", "PostToolUse", "PostToolUse", "Stop"}[k.rng.IntN(4)]
		file := fmt.Sprintf("new/n%d.txt", k.files)
		return "hook", []string{"hook", "claude"}, claudePayload(k.t, k.dir, "s1", event, file)
	case 3, 4:
		return "rewind", []string{k.someCheckpoint(), "--yes", "--outside=overwrite"}, nil
	case 5:
		return "undo", []string{"--undo", "--yes"}, nil
	}
	return "prune", []string{"prune"}, nil
}

// someCheckpoint is a checkpoint the journal names, at random.
func (k *killLoop) someCheckpoint() string {
	ids := k.live()
	return ids[k.rng.IntN(len(ids))]
}

// live lists the checkpoints the journal names whose refs exist.
func (k *killLoop) live() []string {
	var ids []string
	for _, c := range wholeJournal(k.t, k.state).Checkpoints() {
		if c.Reused || slices.Contains(ids, c.ID) {
			continue
		}
		if run(k.t, k.dir, k.env, "git", "rev-parse", "-q", "--verify", "refs/checkpoints/main/"+strconv.Itoa(c.N)).code == 0 {
			ids = append(ids, c.ID)
		}
	}
	if len(ids) == 0 {
		k.t.Fatal("the journal names no checkpoint whose ref exists")
	}
	return ids
}

// locks lists the lock files a kill left where the store writes.
func (k *killLoop) locks() []string {
	var out []string
	for _, root := range []string{filepath.Join(k.dir, ".git", "refs", "checkpoints"), k.state, filepath.Join(k.dir, ".git", "packed-refs.lock")} {
		filepath.Walk(root, func(path string, fi os.FileInfo, err error) error {
			if err == nil && strings.HasSuffix(path, ".lock") {
				rel, _ := filepath.Rel(filepath.Join(k.dir, ".git"), path)
				if strings.HasPrefix(rel, "refs/") {
					rel = "refs/checkpoints/main/N.lock"
				}
				out = append(out, rel)
			}
			return nil
		})
	}
	return out
}

// check is what must hold after a kill.
func (k *killLoop) check(what string) {
	t := k.t
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("after %s: %s", what, fmt.Sprintf(format, args...))
	}
	step := func(want int, name string, args ...string) result {
		t.Helper()
		r := run(t, k.dir, k.env, name, args...)
		if r.code != want {
			fail("%s %s: exit %d, want %d\n%s%s", name, strings.Join(args, " "), r.code, want, r.stdout, r.stderr)
		}
		return r
	}
	// The next capture works, whatever the kill left.
	step(0, "git", "checkpoint", "-m", "after a kill")
	// A rewind killed half way is undone by --undo, the named fix.
	if started, ended := wholeJournal(t, k.state).LastRewind(); started != nil && !ended {
		k.interrupted++
		step(0, "git", "rewind", "--undo", "--yes")
	}
	// A rewind to any checkpoint is exact, and its --undo gives back the
	// tree from before it.
	before := manifest(t, k.dir)
	target := k.someCheckpoint()
	r := step(0, "git", "rewind", target, "--yes", "--outside=overwrite", "--json")
	var doc struct {
		Exact *bool `json:"exact"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		fail("git rewind %s --json printed %q: %v", target, r.stdout, err)
	}
	if doc.Exact != nil && !*doc.Exact {
		fail("the rewind to %s is not exact:\n%s", target, r.stdout)
	}
	if doc.Exact != nil { // nil: the tree matched already, nothing to undo
		step(0, "git", "rewind", "--undo", "--yes")
		sameTree(t, "the tree after the rewind's --undo ("+what+")", before, manifest(t, k.dir))
	}
	// Nothing is left that doctor cannot fix.
	step(0, "git", "checkpoint", "doctor", "--fix")
	// Every checkpoint the journal names has a plan: each new one now,
	// and two of the others again, at random (all of them at the end).
	live := k.live()
	k.rng.Shuffle(len(live), func(i, j int) { live[i], live[j] = live[j], live[i] })
	again := 0
	for _, id := range live {
		if k.planned[id] {
			if again == 2 {
				continue
			}
			again++
		}
		step(0, "git", "rewind", id, "--dry-run")
		k.planned[id] = true
	}
}

// planAll dry-runs a rewind to every checkpoint the journal names.
func (k *killLoop) planAll() {
	for _, id := range k.live() {
		must(k.t, 0, k.dir, k.env, "git", "rewind", id, "--dry-run")
	}
}

// counts prints a tally, its keys sorted.
func (k *killLoop) counts(m map[string]int) string {
	var parts []string
	for key, n := range m {
		parts = append(parts, fmt.Sprintf("%s %d", key, n))
	}
	slices.Sort(parts)
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

package checkpoint_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/agenttest"
	"github.com/git-checkpoint/git-checkpoint/internal/fault"
)

// watchmanHook returns git's sample watchman hook, skipping the test
// (saying why) where watchman is missing or cannot watch a directory here:
// a container may lack the package or the inotify watches.
func watchmanHook(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("watchman"); err != nil {
		agenttest.Missing(t, "no watchman on PATH (Debian package watchman): the fsmonitor path is not tested")
	}
	out, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Skip("no git")
	}
	hook := filepath.Join(strings.TrimSpace(string(out)), "..", "..", "share", "git-core", "templates", "hooks", "fsmonitor-watchman.sample")
	if _, err := os.Stat(hook); err != nil {
		agenttest.Missing(t, "no fsmonitor-watchman sample hook among git's templates (%v)", err)
	}
	probe := t.TempDir()
	if out, err := exec.Command("watchman", "watch-project", probe).CombinedOutput(); err != nil || bytes.Contains(out, []byte(`"error"`)) {
		t.Skipf("watchman cannot watch a directory here: %v %s", err, out)
	}
	exec.Command("watchman", "watch-del", probe).Run()
	return hook
}

// watchedRepo is a repository of files, committed, whose captures ask
// watchman through git's sample hook (checkpoint.fsmonitor), and the
// environment to run git in it.
func watchedRepo(t *testing.T, files map[string]string) (dir string, env []string) {
	t.Helper()
	hook := watchmanHook(t)
	env = gitEnv(t)
	dir = t.TempDir()
	for p, content := range files {
		writeFile(t, filepath.Join(dir, p), content, 0o644)
	}
	must(t, 0, dir, env, "git", "init", "-q", "-b", "main")
	must(t, 0, dir, env, "git", "add", ".")
	must(t, 0, dir, env, "git", "commit", "-qm", "start")
	must(t, 0, dir, env, "git", "config", "core.fsmonitor", hook)
	must(t, 0, dir, env, "git", "config", "checkpoint.fsmonitor", "true")
	t.Cleanup(func() { exec.Command("watchman", "watch-del", dir).Run() })
	return dir, env
}

// TestFsmonitorCapture takes captures with checkpoint.fsmonitor and git's
// watchman hook: the private index gets its own monitor token, a changed
// file, a new untracked file and a deletion are all captured, and a
// capture with nothing changed reuses the checkpoint without running git
// status at all (the monitor, asked from the last scan's token, names no
// change). The result is compared with a capture that does not ask the
// monitor.
func TestFsmonitorCapture(t *testing.T) {
	dir, env := watchedRepo(t, map[string]string{"a.txt": "a\n", "sub/b.txt": "b\n", "sub/c.txt": "c\n"})

	// how is what the capture must have done: "quiet" (asked the monitor
	// alone) or "scan".
	capture := func(want, how string) {
		t.Helper()
		r := must(t, 0, dir, append(env, "GIT_CHECKPOINT_TRACE=1"), "git", "checkpoint")
		if !strings.Contains(r.stdout, want) {
			t.Fatalf("git checkpoint printed %q, want %q\n%s", r.stdout, want, r.stderr)
		}
		did := "quiet"
		if strings.Contains(r.stderr, "trace: git status --porcelain=v2 -z --untracked-files=all") {
			did = "scan"
		}
		if did != how {
			t.Fatalf("a capture that printed %q did %s, want %s:\n%s", want, did, how, r.stderr)
		}
	}
	must(t, 0, dir, env, "git", "checkpoint")
	// The first capture's scan took the first token; the second scans
	// once more (git's first query through the private index answers
	// "everything"), and from then on an unchanged tree needs no scan.
	must(t, 0, dir, env, "git", "checkpoint")
	capture("(reused", "quiet")
	index, err := os.ReadFile(filepath.Join(dir, ".git", "checkpoints", "index"))
	if err != nil {
		t.Fatal(err)
	}
	if i := bytes.Index(index, []byte("FSMN")); i < 0 || !bytes.Contains(index[i:], []byte("c:")) {
		t.Fatalf("the private index holds no watchman token")
	}
	writeFile(t, filepath.Join(dir, "sub/b.txt"), "b changed\n", 0o644)
	capture("k2 ~1 +0 -0", "scan")
	writeFile(t, filepath.Join(dir, "sub/new.txt"), "new\n", 0o644)
	capture("k3 ~0 +1 -0", "scan")
	// A new directory is walked: the monitor may not name all it holds.
	writeFile(t, filepath.Join(dir, "fresh/dir/n.txt"), "n\n", 0o644)
	capture("k4 ~0 +1 -0", "scan")
	os.Remove(filepath.Join(dir, "sub/c.txt"))
	capture("k5 ~0 +0 -1", "scan")
	capture("(reused", "quiet")
	// The real index rewritten with the same entries, as by any git
	// status: read, it changes nothing the monitor answers.
	real := filepath.Join(dir, ".git", "index")
	b, err := os.ReadFile(real)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(real)
	writeFile(t, real, string(b), 0o644)
	capture("(reused", "quiet")
	os.Remove(filepath.Join(dir, "sub/new.txt"))
	writeFile(t, filepath.Join(dir, "sub/new.txt"), "again\n", 0o644)
	capture("k6 ~1 +0 -0", "scan")
	capture("(reused", "quiet")

	// A capture without the monitor finds nothing the monitored ones missed.
	off := must(t, 0, dir, append(env, "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=checkpoint.fsmonitor", "GIT_CONFIG_VALUE_0=false"), "git", "checkpoint")
	if !strings.Contains(off.stdout, "(reused") {
		t.Fatalf("a capture without the monitor found changes the monitored ones missed: %s", off.stdout)
	}
}

// TestFsmonitorUnwatchedInputs changes, with nothing changed in the tree,
// each input of a scan that the monitor does not watch: the user's own
// ignore file, .git/info/exclude, a setting, the real index. Each time the
// capture must scan and take what the change let in, not reuse the last
// tree because the monitor named no change.
func TestFsmonitorUnwatchedInputs(t *testing.T) {
	hook := watchmanHook(t)
	env := gitEnv(t)
	dir := t.TempDir()
	ignore := filepath.Join(t.TempDir(), "ignore")
	writeFile(t, ignore, "junk.txt\n", 0o644)
	writeFile(t, filepath.Join(dir, "a.txt"), "a\n", 0o644)
	writeFile(t, filepath.Join(dir, "junk.txt"), "junk\n", 0o644)
	writeFile(t, filepath.Join(dir, "local.txt"), "local\n", 0o644)
	writeFile(t, filepath.Join(dir, "big.bin"), strings.Repeat("x", 4096), 0o644)
	must(t, 0, dir, env, "git", "init", "-q", "-b", "main")
	must(t, 0, dir, env, "git", "add", "a.txt")
	must(t, 0, dir, env, "git", "commit", "-qm", "start")
	writeFile(t, filepath.Join(dir, ".git", "info", "exclude"), "local.txt\n", 0o644)
	must(t, 0, dir, env, "git", "config", "core.excludesFile", ignore)
	must(t, 0, dir, env, "git", "config", "checkpoint.maxFileBytes", "1k")
	must(t, 0, dir, env, "git", "config", "core.fsmonitor", hook)
	must(t, 0, dir, env, "git", "config", "checkpoint.fsmonitor", "true")
	t.Cleanup(func() { exec.Command("watchman", "watch-del", dir).Run() })

	files := func(want string) {
		t.Helper()
		r := must(t, 0, dir, env, "git", "checkpoint", "--json")
		var rec struct{ Commit string }
		if err := json.Unmarshal([]byte(r.stdout), &rec); err != nil {
			t.Fatalf("git checkpoint --json printed %q", r.stdout)
		}
		got := must(t, 0, dir, env, "git", "ls-tree", "-r", "--name-only", rec.Commit).stdout
		if got := strings.Join(strings.Fields(got), " "); got != want {
			t.Fatalf("the checkpoint holds %q, want %q", got, want)
		}
	}
	quiet := func() {
		t.Helper()
		for range 2 {
			files("a.txt")
		}
		r := must(t, 0, dir, append(env, "GIT_CHECKPOINT_TRACE=1"), "git", "checkpoint")
		if strings.Contains(r.stderr, "trace: git status") || !strings.Contains(r.stdout, "reused") {
			t.Fatalf("an unchanged tree was scanned or not reused:\n%s%s", r.stdout, r.stderr)
		}
	}
	quiet()
	writeFile(t, ignore, "", 0o644)
	files("a.txt junk.txt")
	os.Remove(filepath.Join(dir, "junk.txt"))
	quiet()
	writeFile(t, filepath.Join(dir, ".git", "info", "exclude"), "", 0o644)
	files("a.txt local.txt")
	os.Remove(filepath.Join(dir, "local.txt"))
	quiet()
	must(t, 0, dir, env, "git", "config", "checkpoint.maxFileBytes", "1m")
	files("a.txt big.bin")
	os.Remove(filepath.Join(dir, "big.bin"))
	quiet()
	must(t, 0, dir, env, "git", "rm", "-q", "--cached", "a.txt")
	writeFile(t, ignore, "a.txt\n", 0o644)
	files("")
}

// TestFsmonitorOnlyForThePrivateIndex counts the calls of the user's
// core.fsmonitor hook (a script that logs each call and answers
// "everything changed"): a full scan asks it, through the private
// index, but a per-tool capture, whose git calls work on temporary
// indexes, asks it never. Each question costs a process chain (the query,
// a shell, the hook, watchman's client).
func TestFsmonitorOnlyForThePrivateIndex(t *testing.T) {
	// This test's own hook, not the one a run with every capture through
	// the monitor gives in the environment (which would win over it).
	env := slices.DeleteFunc(gitEnv(t), func(kv string) bool {
		return strings.HasPrefix(kv, "GIT_CONFIG_") && !strings.HasPrefix(kv, "GIT_CONFIG_NOSYSTEM")
	})
	dir := t.TempDir()
	calls := filepath.Join(t.TempDir(), "calls")
	hook := filepath.Join(t.TempDir(), "hook")
	writeFile(t, hook, "#!/bin/sh\necho \"$@\" >> "+calls+"\nprintf 'c:1:2:3:%s\\000/\\000' \"$(date +%s%N)\"\n", 0o755)
	writeFile(t, filepath.Join(dir, "a.txt"), "a\n", 0o644)
	must(t, 0, dir, env, "git", "init", "-q", "-b", "main")
	must(t, 0, dir, env, "git", "config", "core.fsmonitor", hook)
	must(t, 0, dir, env, "git", "config", "checkpoint.fsmonitor", "true")
	asked := func() int {
		b, _ := os.ReadFile(calls)
		return strings.Count(string(b), "\n")
	}
	must(t, 0, dir, env, "git", "checkpoint")
	before := asked()
	must(t, 0, dir, env, "git", "checkpoint")
	scans := asked()
	if scans == before {
		t.Fatal("a full scan did not ask the hook: the count proves nothing")
	}
	writeFile(t, filepath.Join(dir, "a.txt"), "a changed\n", 0o644)
	must(t, 0, dir, env, "git", "checkpoint", "--changed", "a.txt")
	writeFile(t, filepath.Join(dir, "b.txt"), "b\n", 0o644)
	event := filepath.Join(t.TempDir(), "event.json")
	writeFile(t, event, `{"session_id":"s1","hook_event_name":"PostToolUse","cwd":"`+dir+`","tool_name":"Write","tool_input":{"file_path":"`+filepath.Join(dir, "b.txt")+`"}}`, 0o644)
	must(t, 0, dir, append(env, "CLAUDE_PROJECT_DIR="+dir), "sh", "-c", "git checkpoint hook claude < "+fault.ShellQuote(event))
	// Both are partial checkpoints, k2 and k3.
	list := must(t, 0, dir, env, "git", "checkpoint", "list").stdout
	if strings.Count(list, "(partial)") != 2 || !strings.Contains(list, "k3 ") {
		t.Fatalf("the two captures are not partial checkpoints k2 and k3:\n%s", list)
	}
	if n := asked(); n != scans {
		t.Fatalf("per-tool captures asked the hook %d times, want none", n-scans)
	}
}

// TestFsmonitorSeedChecksEveryFile: the private index is seeded from the
// real one, whose monitor token and valid bits git set under the person's
// settings. With core.fileMode=false git never compares the executable
// bit, so a script committed executable has mode 100644 in the real index
// and a token that vouches for it; a capture that kept both trusted the
// entry and recorded the script as not executable, and a rewind then
// dropped its bit. The seed now starts the private index without either,
// so its first monitored scan checks every file.
func TestFsmonitorSeedChecksEveryFile(t *testing.T) {
	hook := watchmanHook(t)
	env := gitEnv(t)
	dir := t.TempDir()
	must(t, 0, dir, env, "git", "init", "-q", "-b", "main")
	for _, kv := range [][2]string{{"core.fileMode", "false"}, {"core.fsmonitor", hook}, {"checkpoint.fsmonitor", "true"}} {
		must(t, 0, dir, env, "git", "config", kv[0], kv[1])
	}
	t.Cleanup(func() { exec.Command("watchman", "watch-del", dir).Run() })
	writeFile(t, filepath.Join(dir, "a.txt"), "a\n", 0o644)
	writeFile(t, filepath.Join(dir, "run.sh"), "#!/bin/sh\n", 0o755)
	must(t, 0, dir, env, "git", "add", ".")
	must(t, 0, dir, env, "git", "commit", "-qm", "start")
	// The person's own status leaves the real index with a token.
	must(t, 0, dir, env, "git", "status", "--short")
	must(t, 0, dir, env, "git", "checkpoint")
	ls := must(t, 0, dir, env, "git", "ls-tree", "refs/checkpoints/main/1", "run.sh")
	if !strings.HasPrefix(ls.stdout, "100755 ") {
		t.Fatalf("the first checkpoint recorded %q, want run.sh executable as it is on disk", ls.stdout)
	}
	writeFile(t, filepath.Join(dir, "run.sh"), "#!/bin/sh\necho changed\n", 0o644)
	if err := os.Chmod(filepath.Join(dir, "run.sh"), 0o644); err != nil {
		t.Fatal(err)
	}
	must(t, 0, dir, env, "git", "checkpoint")
	must(t, 0, dir, env, "git", "rewind", "k1", "--yes")
	if fi, err := os.Stat(filepath.Join(dir, "run.sh")); err != nil || fi.Mode().Perm()&0o100 == 0 {
		t.Fatalf("the rewind to k1 left run.sh %v (%v), want it executable", fi.Mode(), err)
	}
}

// TestFsmonitorMatchesScan changes a watched tree at random, a few
// paths at a time (files written, made executable, replaced by symlinks,
// deleted, ignored ones, an ignore rule, new directories, rewinds), and after each
// round compares the checkpoint a monitored capture took with the tree
// `git add -A` makes of the same files through a copy of the real index,
// under default settings, core.fileMode=false and core.autocrlf. The tree
// git makes is taken with core.fileMode=true: a checkpoint records the
// executable bit on disk whatever the setting says.
func TestFsmonitorMatchesScan(t *testing.T) {
	for _, c := range []struct {
		seed    int64
		setting [2]string
	}{{1, [2]string{}}, {2, [2]string{}}, {3, [2]string{"core.fileMode", "false"}}, {4, [2]string{"core.autocrlf", "true"}}} {
		t.Run(strings.TrimSpace(fmt.Sprint("seed ", c.seed, " ", c.setting[0])), func(t *testing.T) { monitoredMatchesScan(t, c.seed, c.setting) })
	}
}

func monitoredMatchesScan(t *testing.T, seed int64, setting [2]string) {
	files := map[string]string{".gitignore": "*.log\n"}
	for _, p := range []string{"a.txt", "src/b.go", "src/lib/c.go", "docs/d.md", "x/y/z.txt"} {
		files[p] = p + "\n"
	}
	dir, env := watchedRepo(t, files)
	if setting[0] != "" {
		must(t, 0, dir, env, "git", "config", setting[0], setting[1])
	}
	must(t, 0, dir, env, "git", "checkpoint")
	must(t, 0, dir, env, "git", "checkpoint")

	names := []string{"a.txt", "n.txt", "src/b.go", "src/new.go", "src/lib/c.go", "src/lib/run.sh",
		"docs/d.md", "docs/e.log", "x/y/z.txt", "x/y/w.txt", "src/fresh/f.txt", "docs/g.txt"}
	r := rand.New(rand.NewSource(seed))
	for round := 0; round < 40; round++ {
		var did []string
		for k := 0; k < 1+r.Intn(3); k++ {
			p := names[r.Intn(len(names))]
			abs := filepath.Join(dir, p)
			switch op := r.Intn(11); {
			case op < 5:
				os.Remove(abs) // a symlink is replaced, not written through
				writeFile(t, abs, fmt.Sprintf("%s %d%s", p, round, []string{"\n", "\r\n"}[r.Intn(2)]), 0o644)
				did = append(did, "write "+p)
			case op < 6:
				os.Remove(abs)
				writeFile(t, abs, "#!/bin/sh\n", 0o755)
				did = append(did, "exec "+p)
			case op < 7:
				os.Remove(abs)
				os.MkdirAll(filepath.Dir(abs), 0o755)
				if err := os.Symlink("a.txt", abs); err != nil {
					t.Fatal(err)
				}
				did = append(did, "symlink "+p)
			case op < 9:
				os.Remove(abs)
				did = append(did, "remove "+p)
			case op < 10:
				writeFile(t, filepath.Join(dir, ".gitignore"), []string{"*.log\n", "*.log\n*.sh\n"}[r.Intn(2)], 0o644)
				did = append(did, "ignore rules")
			default:
				k := fmt.Sprintf("k%d", 1+r.Intn(round+1))
				run(t, dir, env, "git", "rewind", k, "--yes", "--force")
				did = append(did, "rewind to "+k)
			}
		}
		res := must(t, 0, dir, append(env, "GIT_CHECKPOINT_TRACE=1"), "git", "checkpoint")
		index := filepath.Join(t.TempDir(), "index")
		real, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, index, string(real), 0o644)
		scanEnv := append(env, "GIT_INDEX_FILE="+index)
		must(t, 0, dir, scanEnv, "git", "-c", "core.fsmonitor=false", "-c", "core.fileMode=true", "add", "-A")
		want := strings.TrimSpace(must(t, 0, dir, scanEnv, "git", "write-tree").stdout)
		got := strings.TrimSpace(must(t, 0, dir, env, "git", "rev-parse", fmt.Sprintf("refs/checkpoints/main/%d^{tree}", newestNumber(t, dir, env))).stdout)
		if got != want {
			t.Fatalf("round %d (%s): the checkpoint's tree %s, git add -A's %s\n%s\n%s", round, strings.Join(did, ", "), got, want,
				must(t, 0, dir, env, "git", "diff-tree", "-r", "--name-status", got, want).stdout, res.stderr)
		}
	}
}

// numbered is the number a checkpoint's ref ends in.
func numbered(ref string) int {
	n, _ := strconv.Atoi(ref[strings.LastIndexByte(ref, '/')+1:])
	return n
}

// TestFsmonitorUnderStress takes monitored captures where the world is
// not polite: a file over checkpoint.maxFileBytes, a FIFO, an executable
// bit under core.fileMode=false, a file rewritten while the captures run,
// and captures killed at random moments. After each, a capture without
// the monitor (a whole scan) must find the tree the monitored one took,
// and at the end doctor must find nothing wrong. (It found a file a
// capture had lost when a turn end took the monitor's named paths
// without a scan: docs/speed.md, "Tried and left out".)
func TestFsmonitorUnderStress(t *testing.T) {
	dir, env := watchedRepo(t, map[string]string{"a.txt": "a\n", "src/b.go": "b\n", "src/c.go": "c\n"})
	must(t, 0, dir, env, "git", "config", "checkpoint.maxFileBytes", "1k")
	must(t, 0, dir, env, "git", "checkpoint")
	must(t, 0, dir, env, "git", "checkpoint")
	unmonitored := append(slices.Clip(env), "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=checkpoint.fsmonitor", "GIT_CONFIG_VALUE_0=false")
	// capture takes a monitored capture and checks it against a whole
	// scan's, which names what it found that the monitored one did not.
	capture := func(what string) string {
		t.Helper()
		r := must(t, 0, dir, env, "git", "checkpoint")
		if off := must(t, 0, dir, unmonitored, "git", "checkpoint"); !strings.Contains(off.stdout, "(reused") {
			n := newestNumber(t, dir, env)
			t.Fatalf("%s: a whole scan found what the monitored capture did not take: %s%s\nthe monitored one: %s", what, off.stdout,
				must(t, 0, dir, env, "git", "diff-tree", "-r", "--name-status", fmt.Sprintf("refs/checkpoints/main/%d", n-1), fmt.Sprintf("refs/checkpoints/main/%d", n)).stdout, r.stdout)
		}
		// Back to a monitored state: a scan that takes a token, then one
		// that answers from it.
		must(t, 0, dir, env, "git", "checkpoint")
		must(t, 0, dir, env, "git", "checkpoint")
		return r.stdout
	}

	writeFile(t, filepath.Join(dir, "src", "big.bin"), strings.Repeat("x", 2048), 0o644)
	if out := capture("a new file over the limit"); !strings.Contains(out, "big.bin") {
		t.Errorf("the capture did not name the file it left out: %s", out)
	}
	writeFile(t, filepath.Join(dir, "src", "b.go"), strings.Repeat("b", 2048), 0o644)
	capture("a tracked file grown over the limit")
	if err := syscall.Mkfifo(filepath.Join(dir, "src", "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	capture("a FIFO")

	must(t, 0, dir, env, "git", "config", "core.fileMode", "false")
	must(t, 0, dir, env, "git", "checkpoint")
	must(t, 0, dir, env, "git", "checkpoint")
	if err := os.Chmod(filepath.Join(dir, "src", "c.go"), 0o755); err != nil {
		t.Fatal(err)
	}
	capture("an executable bit under core.fileMode=false")
	mode := must(t, 0, dir, env, "git", "ls-tree", "refs/checkpoints/main/"+strconv.Itoa(newestNumber(t, dir, env)), "src/c.go").stdout
	if !strings.HasPrefix(mode, "100755 ") {
		t.Errorf("the checkpoint holds %q, want src/c.go executable", mode)
	}

	// A writer rewrites a file while captures run.
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			os.WriteFile(filepath.Join(dir, "src", "w.txt"), []byte(strings.Repeat(fmt.Sprint(i), 1+i%50)), 0o644)
			time.Sleep(time.Millisecond)
		}
	}()
	for i := 0; i < 5; i++ {
		must(t, 0, dir, env, "git", "checkpoint")
	}
	close(stop)
	<-done
	capture("a file rewritten during the captures")

	// Captures killed at random moments, a change before each.
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 20; i++ {
		writeFile(t, filepath.Join(dir, "src", fmt.Sprintf("k%d.txt", rng.Intn(5))), fmt.Sprint(i), 0o644)
		cmd, stdout, stderr := command(dir, env, "git", "checkpoint")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rng.Intn(30)) * time.Millisecond)
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		finish(t, cmd, stdout, stderr)
		capture(fmt.Sprint("after a capture killed at a random moment, ", i))
	}
	must(t, 0, dir, env, "git", "checkpoint", "doctor")
}

// newestNumber is the number of the newest checkpoint of the main worktree.
func newestNumber(t *testing.T, dir string, env []string) int {
	t.Helper()
	refs := strings.Fields(must(t, 0, dir, env, "git", "for-each-ref", "--format=%(refname)", "refs/checkpoints/main/").stdout)
	return numbered(slices.MaxFunc(refs, func(a, b string) int { return numbered(a) - numbered(b) }))
}

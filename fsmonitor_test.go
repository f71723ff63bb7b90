package checkpoint_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// watchmanHook returns git's sample watchman hook, skipping the test
// (saying why) where watchman is missing or cannot watch a directory here:
// a container may lack the package or the inotify watches.
func watchmanHook(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("watchman"); err != nil {
		t.Skip("no watchman on PATH (Debian package watchman): the fsmonitor path is not tested")
	}
	out, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Skip("no git")
	}
	hook := filepath.Join(strings.TrimSpace(string(out)), "..", "..", "share", "git-core", "templates", "hooks", "fsmonitor-watchman.sample")
	if _, err := os.Stat(hook); err != nil {
		t.Skipf("no fsmonitor-watchman sample hook among git's templates (%v)", err)
	}
	probe := t.TempDir()
	if out, err := exec.Command("watchman", "watch-project", probe).CombinedOutput(); err != nil || bytes.Contains(out, []byte(`"error"`)) {
		t.Skipf("watchman cannot watch a directory here: %v %s", err, out)
	}
	exec.Command("watchman", "watch-del", probe).Run()
	return hook
}

// TestFsmonitorCapture takes captures with checkpoint.fsmonitor and git's
// watchman hook: the private index gets its own monitor token, a changed
// file, a new untracked file and a deletion are all captured, and a
// capture with nothing changed reuses the checkpoint. The result is
// compared with a capture that does not ask the monitor.
func TestFsmonitorCapture(t *testing.T) {
	hook := watchmanHook(t)
	env := gitEnv(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.txt"), "a\n", 0o644)
	writeFile(t, filepath.Join(dir, "sub/b.txt"), "b\n", 0o644)
	writeFile(t, filepath.Join(dir, "sub/c.txt"), "c\n", 0o644)
	must(t, 0, dir, env, "git", "init", "-q", "-b", "main")
	must(t, 0, dir, env, "git", "add", ".")
	must(t, 0, dir, env, "git", "commit", "-qm", "start")
	must(t, 0, dir, env, "git", "config", "core.fsmonitor", hook)
	must(t, 0, dir, env, "git", "config", "checkpoint.fsmonitor", "true")
	t.Cleanup(func() { exec.Command("watchman", "watch-del", dir).Run() })

	capture := func(want string) {
		t.Helper()
		r := must(t, 0, dir, append(env, "GIT_CHECKPOINT_TRACE=1"), "git", "checkpoint")
		if !strings.Contains(r.stdout, want) {
			t.Fatalf("git checkpoint printed %q, want %q\n%s", r.stdout, want, r.stderr)
		}
		if !strings.Contains(r.stderr, "trace: git status --porcelain=v2 -z --untracked-files=all") {
			t.Fatalf("the capture did not scan through the monitor:\n%s", r.stderr)
		}
	}
	capture("k1 ")
	capture("(reused")
	index, err := os.ReadFile(filepath.Join(dir, ".git", "checkpoints", "index"))
	if err != nil {
		t.Fatal(err)
	}
	if i := bytes.Index(index, []byte("FSMN")); i < 0 || !bytes.Contains(index[i:], []byte("c:")) {
		t.Fatalf("the private index holds no watchman token")
	}
	writeFile(t, filepath.Join(dir, "sub/b.txt"), "b changed\n", 0o644)
	capture("k2 ~1 +0 -0")
	writeFile(t, filepath.Join(dir, "sub/new.txt"), "new\n", 0o644)
	writeFile(t, filepath.Join(dir, "fresh/dir/n.txt"), "n\n", 0o644)
	capture("k3 ~0 +2 -0")
	os.Remove(filepath.Join(dir, "sub/c.txt"))
	capture("k4 ~0 +0 -1")
	capture("(reused")
	capture("(reused")

	// A capture without the monitor finds nothing the monitored ones missed.
	off := must(t, 0, dir, append(env, "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=checkpoint.fsmonitor", "GIT_CONFIG_VALUE_0=false"), "git", "checkpoint")
	if !strings.Contains(off.stdout, "(reused") {
		t.Fatalf("a capture without the monitor found changes the monitored ones missed: %s", off.stdout)
	}
}

package checkpoint_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestBisectInterrupted sends SIGINT (then, in a second case, SIGTERM) to
// a bisect while CMD runs: CMD gets the signal (its shell dies of it, the
// sleep with it), the bisect removes its temporary worktree and exits
// 128+N, and this tree and its worktree list are as before.
func TestBisectInterrupted(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			tmp := t.TempDir()
			env := gitEnv(t, "TMPDIR="+tmp)
			dir := filepath.Join(t.TempDir(), "tree")
			writeFile(t, filepath.Join(dir, "a.txt"), "a\n", 0o644)
			must(t, 0, dir, env, "git", "init", "-q", "-b", "main")
			must(t, 0, dir, env, "git", "add", ".")
			must(t, 0, dir, env, "git", "commit", "-q", "-m", "init")
			must(t, 0, dir, env, "git", "checkpoint", "run", "--", "sh", "-c", "echo one > one.txt")
			must(t, 0, dir, env, "git", "checkpoint", "run", "--", "sh", "-c", "touch broken")
			before := manifest(t, dir)
			marks := t.TempDir()
			started, finished := filepath.Join(marks, "started"), filepath.Join(marks, "finished")
			// Run the binary itself, not through git, so that the signal
			// reaches it and not git's wrapper.
			cmd, stdout, stderr := command(dir, env, "git-checkpoint", "bisect", "--good", "t1", "--",
				"sh", "-c", "touch "+started+"; sleep 30; touch "+finished+"; test ! -e broken")
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(20 * time.Second)
			for {
				if _, err := os.Stat(started); err == nil {
					break
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatal("CMD never started")
				}
				time.Sleep(10 * time.Millisecond)
			}
			cmd.Process.Signal(sig)
			r := finish(t, cmd, stdout, stderr)
			if r.code != 128+int(sig) {
				t.Fatalf("exit %d, want %d\n%s", r.code, 128+int(sig), r.stderr)
			}
			if _, err := os.Stat(finished); err == nil {
				t.Fatal("CMD ran to its end: the signal did not reach it")
			}
			if !strings.Contains(r.stderr, "git-checkpoint: error: bisect stopped by "+map[syscall.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM"}[sig]+"; its temporary worktree was removed\n") {
				t.Fatalf("stderr:\n%s", r.stderr)
			}
			if r.stdout != "" {
				t.Fatalf("stdout: %q", r.stdout)
			}
			wt := must(t, 0, dir, env, "git", "worktree", "list")
			if strings.Count(wt.stdout, "\n") != 1 {
				t.Fatalf("worktrees left:\n%s", wt.stdout)
			}
			if left, _ := os.ReadDir(tmp); len(left) > 0 {
				t.Fatalf("left in the temporary directory: %v", left)
			}
			if left, _ := os.ReadDir(filepath.Join(dir, ".git", "checkpoints", "bisect")); len(left) > 0 {
				t.Fatalf("markers left: %v", left)
			}
			sameTree(t, "the tree after the interrupted bisect", before, manifest(t, dir))
			must(t, 0, dir, env, "git", "checkpoint", "doctor")
		})
	}
}

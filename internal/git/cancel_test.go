package git

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/gittest"
)

// TestDeadlineTerminates checks that a git call whose context ends gets
// SIGTERM, which lets git remove its lock files, and not SIGKILL, which
// leaves them to fail every later call. `git commit -a` holds index.lock
// while its editor runs; the editor says when it has started, and the
// context ends then. Git removes the lock only if it could handle the
// signal.
//
// An earlier form watched a shell alias trap the signal git passed on.
// Git marks an alias's shell for that only after the fork returns, so on a
// busy machine the shell could be ready, and the signal come, before git
// knew to pass it on: the test failed with nothing wrong.
func TestDeadlineTerminates(t *testing.T) {
	repo := gittest.NewRepoWith(t, map[string]string{"f": "1\n"})
	repo.Write(map[string]string{"f": "2\n"})
	dir := t.TempDir()
	ready, pid := filepath.Join(dir, "ready"), filepath.Join(dir, "editor.pid")
	// The editor's output goes nowhere, so that git's pipes close when git
	// exits; its pid is kept so that the test can end it.
	editor := "echo $$ > " + pid + "; echo > " + ready + "; exec sleep 30 >/dev/null 2>&1 <&-; :"
	t.Cleanup(func() {
		if b, err := os.ReadFile(pid); err == nil {
			if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && n > 0 {
				if p, err := os.FindProcess(n); err == nil {
					_ = p.Kill()
				}
			}
		}
	})
	r := &Runner{Dir: repo.Dir, Env: repo.Env}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		defer cancel()
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if _, err := os.Stat(ready); err == nil {
				return
			}
		}
	}()
	lock := filepath.Join(repo.Dir, ".git", "index.lock")
	_, err := r.Run(ctx, Cmd{Args: []string{"commit", "-a"}, Env: []string{"GIT_EDITOR=" + editor}})
	if err == nil {
		t.Fatal("the call outlived its context")
	}
	if _, err := os.Stat(ready); err != nil {
		t.Fatalf("the editor never started: %v", err)
	}
	if _, err := os.Stat(lock); err == nil {
		t.Error("git left index.lock: it was not sent SIGTERM when its context ended")
	}
}

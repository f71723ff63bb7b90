package git

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/gittest"
)

// TestDeadlineTerminates checks that a git call whose context ends gets
// SIGTERM, which lets git remove its lock files, and not SIGKILL: git
// passes the signal on to an alias's shell, whose trap leaves a file. The
// context ends once the shell says its trap is set, not after a fixed
// time: on a busy machine the shell could start after it, and die of the
// signal without its trap.
func TestDeadlineTerminates(t *testing.T) {
	dir := t.TempDir()
	mark, ready := filepath.Join(dir, "terminated"), filepath.Join(dir, "ready")
	r := &Runner{Dir: dir, Env: gittest.Env(t)}
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
	alias := "alias.slow=!trap 'echo > " + mark + "; kill $!; exit 1' TERM; sleep 30 & echo > " + ready + "; wait"
	if _, err := r.Run(ctx, Cmd{Args: []string{"-c", alias, "slow"}}); err == nil {
		t.Fatal("the call outlived its context")
	}
	for i := 0; i < 50; i++ {
		if _, err := os.Stat(mark); err == nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Error("git was not sent SIGTERM when its context ended")
}

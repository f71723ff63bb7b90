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
// passes the signal on to an alias's shell, whose trap leaves a file.
func TestDeadlineTerminates(t *testing.T) {
	dir := t.TempDir()
	mark := filepath.Join(dir, "terminated")
	r := &Runner{Dir: dir, Env: gittest.Env(t)}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	alias := "alias.slow=!trap 'echo > " + mark + "; kill $!; exit 1' TERM; sleep 5 & wait"
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

package git

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestYield checks that a Cmd.Yield git runs at YieldNice, and that it
// leaves this process as it was: git's after it run at the niceness
// they ran at before. git reports its own through an alias, whose shell
// inherits git's. Run at a niceness of YieldNice or more, it checks
// instead that git is not made less nice (which root could do).
func TestYield(t *testing.T) {
	r := &Runner{Dir: t.TempDir(), Env: os.Environ()}
	nice := func(yield bool) int {
		t.Helper()
		out, err := r.Run(context.Background(), Cmd{Args: []string{"prio"}, Config: []string{"alias.prio=!nice"}, Yield: yield})
		if err != nil {
			t.Fatal(err)
		}
		n, err := strconv.Atoi(strings.TrimSpace(string(out)))
		if err != nil {
			t.Fatalf("nice printed %q", out)
		}
		return n
	}
	own := nice(false)
	for i := 0; i < 10; i++ {
		if got := nice(true); got != max(own, YieldNice) {
			t.Fatalf("a yielding git runs at niceness %d, want %d", got, max(own, YieldNice))
		}
		if got := nice(false); got != own {
			t.Fatalf("after a yielding git, git runs at niceness %d, want %d as before", got, own)
		}
	}
}

package cli

import (
	"fmt"
	"sync"
	"time"
)

// progress shows what a slow operation is doing: after a second, on a
// terminal, never with --json or --quiet. It returns the function that
// ends it and clears the line.
func (s *session) progress(what string) (stop func()) {
	if s.g.JSON || s.g.Quiet || !isTerminal(s.sys.Stderr) {
		return func() {}
	}
	var mu sync.Mutex
	shown := false
	t := time.AfterFunc(time.Second, func() {
		mu.Lock()
		defer mu.Unlock()
		shown = true
		fmt.Fprintf(s.sys.Stderr, "git-checkpoint: %s...", what)
	})
	return func() {
		t.Stop()
		mu.Lock()
		defer mu.Unlock()
		if shown {
			fmt.Fprint(s.sys.Stderr, "\r\x1b[K")
		}
	}
}

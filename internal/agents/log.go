package agents

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// logLimit bounds hook.log: past it the file becomes hook.log.1 (replacing
// the one before) and a new one starts, so the two never hold more than
// twice this.
const logLimit = 64 << 10

// Log appends one line to hook.log in the state directory. A hook cannot
// show its failures to anyone (the agent must not be disturbed), so this
// is where they go; writing it never fails the hook.
func Log(stateDir string, now time.Time, agent, event, msg string) {
	path := filepath.Join(stateDir, "hook.log")
	if fi, err := os.Stat(path); err == nil && fi.Size() > logLimit {
		os.Rename(path, path+".1")
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, store.PrivateFile)
	if err != nil {
		return
	}
	defer f.Close()
	if event == "" {
		event = "-"
	}
	msg = strings.Join(strings.Fields(msg), " ")
	if len(msg) > 1000 {
		msg = msg[:1000] + "..."
	}
	// One write per line, so lines of concurrent hooks do not interleave.
	f.WriteString(fmt.Sprintf("%s %s %s: %s\n", now.UTC().Format(time.RFC3339), agent, oneLine(event), msg))
}

// oneLine keeps a name from an event on one short line.
func oneLine(s string) string {
	s = printable(s)
	if len(s) > 80 {
		s = s[:80]
	}
	return s
}

// printable replaces control characters, so that s stays one line.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, s)
}

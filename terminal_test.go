package checkpoint_test

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/agenttest"
)

// terminal is a real terminal (a tmux server of its own) running a shell
// script, for the tests of what only a terminal shows: prompts, the
// picker. It is killed when the test ends.
type terminal struct {
	t      *testing.T
	socket string
}

// startTerminal runs script (shell commands) in dir, with env exported, on
// a new terminal width columns wide and height rows tall. The script's
// last command is followed by a wait, so that its output stays on the
// screen to be read. Without tmux the test is skipped, or fails in CI.
func startTerminal(t *testing.T, env []string, dir string, width, height int, script string) *terminal {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		agenttest.Missing(t, "tmux is not installed, so no real terminal can be driven (.ci/run installs it)")
	}
	var sh strings.Builder
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		if name != "" && !strings.ContainsAny(name, " ;()") {
			fmt.Fprintf(&sh, "export %s='%s'\n", name, strings.ReplaceAll(value, "'", `'\''`))
		}
	}
	fmt.Fprintf(&sh, "cd '%s'\n%s\nsleep 60\n", dir, script)
	path := filepath.Join(t.TempDir(), "terminal.sh")
	writeFile(t, path, sh.String(), 0o755)
	tm := &terminal{t: t, socket: filepath.Join(t.TempDir(), "tmux.sock")}
	tm.tmux("new-session", "-d", "-x", fmt.Sprint(width), "-y", fmt.Sprint(height), "sh "+path)
	t.Cleanup(func() { exec.Command("tmux", "-S", tm.socket, "kill-server").Run() })
	return tm
}

func (tm *terminal) tmux(args ...string) string {
	tm.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", tm.socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
	if err != nil {
		tm.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// keys types keys, as tmux names them ("j", "Down", "Enter", "Escape",
// "C-c").
func (tm *terminal) keys(keys ...string) {
	tm.t.Helper()
	tm.tmux(append([]string{"send-keys"}, keys...)...)
}

// screen is the text on the screen, and above it what scrolled off, each
// line without trailing spaces (-J keeps some where a longer line was).
func (tm *terminal) screen() string {
	lines := strings.Split(tm.tmux("capture-pane", "-p", "-J", "-S", "-100"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// waitFor waits until the screen shows every one of texts, and returns it.
func (tm *terminal) waitFor(texts ...string) string {
	tm.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		s := tm.screen()
		missing := false
		for _, text := range texts {
			missing = missing || !strings.Contains(s, text)
		}
		if !missing {
			return s
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("the terminal never showed %q; it shows:\n%s", texts, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

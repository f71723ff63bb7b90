package agenttest

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Terminal is a real terminal, a tmux server of its own, running a shell
// script: for what only a terminal shows (a prompt, the picker, an
// agent's terminal interface). It is killed when the test ends.
type Terminal struct {
	t      testing.TB
	socket string
	// Timeout bounds each WaitFor (30 s unless set).
	Timeout time.Duration
}

// StartTerminal runs script (shell commands) in dir on a new terminal
// width columns wide and height rows tall, with env as its whole
// environment (the server's, and exported again by the script), so that
// nothing of the test's own environment that env leaves out reaches the
// program. The script's last command is followed by a wait, so that its
// output stays on the screen to be read. Without tmux the test is
// skipped, or fails in CI (Missing), where .ci/run installs it.
func StartTerminal(t testing.TB, env []string, dir string, width, height int, script string) *Terminal {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		Missing(t, "tmux is not installed, so no real terminal can be driven (.ci/run installs it)")
	}
	var sh strings.Builder
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		if name != "" && !strings.ContainsAny(name, " ;()") {
			fmt.Fprintf(&sh, "export %s='%s'\n", name, strings.ReplaceAll(value, "'", `'\''`))
		}
	}
	fmt.Fprintf(&sh, "cd '%s'\n%s\nsleep 60\n", dir, script)
	// A short directory: a socket's path is limited to about 100 bytes.
	tmp := tempDir(t)
	path := filepath.Join(tmp, "terminal.sh")
	writeFile(t, path, sh.String())
	tm := &Terminal{t: t, socket: filepath.Join(tmp, "tmux.sock"), Timeout: 30 * time.Second}
	tm.tmux(env, "new-session", "-d", "-x", fmt.Sprint(width), "-y", fmt.Sprint(height), "sh "+path)
	t.Cleanup(func() { exec.Command("tmux", "-S", tm.socket, "kill-server").Run() })
	return tm
}

// tmux runs a tmux command on the terminal's server, with env when it
// starts the server (nil: the test's).
func (tm *Terminal) tmux(env []string, args ...string) string {
	tm.t.Helper()
	cmd := exec.Command("tmux", append([]string{"-S", tm.socket, "-f", "/dev/null"}, args...)...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		tm.t.Fatalf("agenttest: tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// Tmux runs a tmux command on the terminal's server and returns its
// output: what the other methods do not ask (capture-pane without -J, to
// see lines cut as the screen shows them).
func (tm *Terminal) Tmux(args ...string) string {
	tm.t.Helper()
	return tm.tmux(nil, args...)
}

// Keys types keys, as tmux names them ("j", "Down", "Enter", "Escape",
// "C-c").
func (tm *Terminal) Keys(keys ...string) {
	tm.t.Helper()
	tm.tmux(nil, append([]string{"send-keys"}, keys...)...)
}

// Screen is the text on the screen, and above it what scrolled off, each
// line without trailing spaces (-J keeps some where a longer line was).
func (tm *Terminal) Screen() string {
	lines := strings.Split(tm.tmux(nil, "capture-pane", "-p", "-J", "-S", "-100"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// WaitFor waits until the screen shows every one of texts, and returns it.
func (tm *Terminal) WaitFor(texts ...string) string {
	tm.t.Helper()
	deadline := time.Now().Add(tm.Timeout)
	for {
		s := tm.Screen()
		missing := false
		for _, text := range texts {
			missing = missing || !strings.Contains(s, text)
		}
		if !missing {
			return s
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("agenttest: the terminal never showed %q; it shows:\n%s", texts, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

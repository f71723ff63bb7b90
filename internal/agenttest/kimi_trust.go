package agenttest

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// KimiTrust trusts run.Dir as a person does: it starts Kimi Code's
// terminal interface there (kimi, no prompt) on a real terminal, a tmux
// server of its own, answers its "Trust this folder?" with Enter, the
// first choice, and leaves with Ctrl-C twice once the prompt box shows.
// Kimi Code remembers the choice for that directory under its home, and
// only then starts the MCP servers of the project's files, kimi -p too.
// Without tmux the test is skipped, or fails with CI=true, where .ci/run
// installs it.
func KimiTrust(t testing.TB, run Run) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		Missing(t, "agenttest: tmux is not installed, so Kimi Code's terminal interface cannot be driven to trust a folder (.ci/run installs it)")
	}
	bin := Binary(t, "kimi")
	prepareHome(t, &run)
	nodeFirst(t, &run)
	var sh strings.Builder
	for _, kv := range append(append(kimiEnv(t, run), "TERM=xterm-256color"), run.Env...) {
		name, value, _ := strings.Cut(kv, "=")
		if name != "" && !strings.ContainsAny(name, " ;()") {
			fmt.Fprintf(&sh, "export %s='%s'\n", name, strings.ReplaceAll(value, "'", `'\''`))
		}
	}
	fmt.Fprintf(&sh, "cd '%s' && '%s'; echo KIMI-EXITED; sleep 60\n", run.Dir, bin)
	dir := tempDir(t)
	script := filepath.Join(dir, "kimi.sh")
	writeFile(t, script, sh.String())
	tm := tmux{t: t, socket: filepath.Join(dir, "tmux.sock")}
	tm.run("new-session", "-d", "-x", "100", "-y", "40", "sh "+script)
	defer exec.Command("tmux", "-S", tm.socket, "kill-server").Run()

	tm.waitFor("Trust this folder?")
	tm.run("send-keys", "Enter")
	tm.waitFor("context:") // the prompt box's status line
	tm.run("send-keys", "C-c")
	time.Sleep(300 * time.Millisecond)
	tm.run("send-keys", "C-c")
	tm.waitFor("KIMI-EXITED")
}

// tmux is a tmux server of a test's own.
type tmux struct {
	t      testing.TB
	socket string
}

func (tm tmux) run(args ...string) string {
	tm.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", tm.socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
	if err != nil {
		tm.t.Fatalf("agenttest: tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// waitFor waits until the screen shows text.
func (tm tmux) waitFor(text string) {
	tm.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		screen := tm.run("capture-pane", "-p", "-J", "-S", "-100")
		if strings.Contains(screen, text) {
			return
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("agenttest: Kimi Code's terminal never showed %q; it shows:\n%s", text, screen)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

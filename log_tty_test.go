package checkpoint_test

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// TestLogCutOnTerminal runs git checkpoint log on a real terminal 60
// columns wide (tmux): a turn's prompt is cut to the width, ending in an
// ellipsis, while the same log through a pipe keeps it whole.
func TestLogCutOnTerminal(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed, so no real terminal can be driven (.ci/run installs it)")
	}
	dir := t.TempDir()
	env := gitEnv(t)
	must(t, 0, dir, env, "git", "init", "-q", "-b", "main")
	long := "echo " + strings.Repeat("word ", 30) + "end"
	must(t, 0, dir, env, "git", "checkpoint", "run", "--", "sh", "-c", long+" > out.txt")
	piped := must(t, 0, dir, env, "git", "checkpoint", "log")
	if !strings.Contains(piped.stdout, "word end > out.txt\n") {
		t.Fatalf("the log through a pipe cut the prompt:\n%s", piped.stdout)
	}

	var script strings.Builder
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		if name != "" && !strings.ContainsAny(name, " ;()") {
			fmt.Fprintf(&script, "export %s='%s'\n", name, strings.ReplaceAll(value, "'", `'\''`))
		}
	}
	fmt.Fprintf(&script, "cd '%s'\ngit checkpoint log\necho \"EXIT=$?\"\nsleep 60\n", dir)
	scriptPath := filepath.Join(t.TempDir(), "log.sh")
	writeFile(t, scriptPath, script.String(), 0o755)
	socket := filepath.Join(t.TempDir(), "tmux.sock")
	tmux := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("tmux", append([]string{"-S", socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	tmux("new-session", "-d", "-x", "60", "-y", "20", "sh "+scriptPath)
	defer exec.Command("tmux", "-S", socket, "kill-server").Run()
	var screen string
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		// Without -J, a line that wrapped would show as two.
		screen = tmux("capture-pane", "-p", "-S", "-20")
		if strings.Contains(screen, "EXIT=") || time.Now().After(deadline) {
			break
		}
	}
	if !strings.Contains(screen, "EXIT=0") {
		t.Fatalf("git checkpoint log on a terminal:\n%s", screen)
	}
	var row string
	for _, line := range strings.Split(screen, "\n") {
		if strings.HasPrefix(line, "t1 ") {
			row = strings.TrimRight(line, " ")
		}
	}
	if !strings.HasSuffix(row, "…") || utf8.RuneCountInString(row) != 60 || !strings.Contains(row, "sh -c ") {
		t.Fatalf("the turn's row is not cut to 60 columns with an ellipsis: %q\n%s", row, screen)
	}
	if strings.Contains(screen, "end > out.txt") {
		t.Fatalf("the prompt's end is on the terminal, so it wrapped:\n%s", screen)
	}
}

package checkpoint_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/git-checkpoint/git-checkpoint/internal/agenttest"
)

// TestLogCutOnTerminal runs git checkpoint log on a real terminal 60
// columns wide (tmux): a turn's prompt is cut to the width, ending in an
// ellipsis, while the same log through a pipe keeps it whole.
func TestLogCutOnTerminal(t *testing.T) {
	dir := t.TempDir()
	env := gitEnv(t)
	must(t, 0, dir, env, "git", "init", "-q", "-b", "main")
	long := "echo " + strings.Repeat("word ", 30) + "end"
	must(t, 0, dir, env, "git", "checkpoint", "run", "--", "sh", "-c", long+" > out.txt")
	piped := must(t, 0, dir, env, "git", "checkpoint", "log")
	if !strings.Contains(piped.stdout, "word end > out.txt\n") {
		t.Fatalf("the log through a pipe cut the prompt:\n%s", piped.stdout)
	}

	tm := agenttest.StartTerminal(t, env, dir, 60, 20, "git checkpoint log\necho \"EXIT=$?\"")
	tm.WaitFor("EXIT=")
	// Without -J, a line that wrapped would show as two.
	screen := tm.Tmux("capture-pane", "-p", "-S", "-20")
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

// TestLegendOnTerminal: on a terminal, list and log end their table with
// what the signs of the change counts mean (~2 +1 -0); through a pipe the
// table is its header and rows alone, for scripts.
func TestLegendOnTerminal(t *testing.T) {
	dir := t.TempDir()
	env := gitEnv(t)
	must(t, 0, dir, env, "git", "init", "-q", "-b", "main")
	must(t, 0, dir, env, "git", "checkpoint", "-q", "-m", "one")
	must(t, 0, dir, env, "git", "checkpoint", "run", "--", "sh", "-c", "echo new > b.txt")
	const legend = "CHANGES: ~ modified, + added, - deleted"
	for _, cmd := range []string{"list", "log"} {
		if piped := must(t, 0, dir, env, "git", "checkpoint", cmd); strings.Contains(piped.stdout, "CHANGES:") {
			t.Errorf("git checkpoint %s through a pipe has the legend:\n%s", cmd, piped.stdout)
		}
		tm := agenttest.StartTerminal(t, env, dir, 120, 20, "git checkpoint "+cmd+"\necho \"EXIT=$?\"")
		tm.WaitFor("EXIT=")
		screen := tm.Tmux("capture-pane", "-p", "-S", "-20")
		var last []string
		for _, l := range strings.Split(screen, "\n") {
			if l = strings.TrimRight(l, " "); l != "" {
				last = append(last, l)
			}
		}
		if n := len(last); n < 4 || !strings.HasPrefix(last[n-3], "k1 ") || last[n-2] != legend || last[n-1] != "EXIT=0" {
			t.Errorf("git checkpoint %s on a terminal does not end its table with %q:\n%s", cmd, legend, screen)
		}
	}
}

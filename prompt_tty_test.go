package checkpoint_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/agenttest"
)

// TestPromptKeepOnTerminal answers the outside-edits prompt of a real
// terminal (tmux: send-keys, capture-pane): "k" keeps the person's file
// and applies the plan chosen, although that plan holds a file whose only
// change is CRLF to LF under text=auto (raw bytes that a plan built in two
// calls once left out, so the applied plan had another id).
func TestPromptKeepOnTerminal(t *testing.T) {
	dir := t.TempDir()
	env := gitEnv(t)
	must(t, 0, dir, env, "git", "init", "-q", "-b", "main")
	writeFile(t, filepath.Join(dir, ".gitattributes"), "* text=auto\n", 0o644)
	must(t, 0, dir, env, "git", "add", ".gitattributes")
	must(t, 0, dir, env, "git", "commit", "-q", "-m", "attributes")
	writeFile(t, filepath.Join(dir, "crlf.txt"), "one\r\ntwo\r\n", 0o644)
	writeFile(t, filepath.Join(dir, "notes.txt"), "notes\n", 0o644)
	must(t, 0, dir, env, "git", "checkpoint", "run", "--", "true")
	writeFile(t, filepath.Join(dir, "notes.txt"), "mine\n", 0o644)
	must(t, 0, dir, env, "git", "checkpoint", "run", "--", "sh", "-c", `printf "one\ntwo\n" > crlf.txt`)

	// The script reports the exit status on the screen.
	term := agenttest.StartTerminal(t, env, dir, 160, 50, "git rewind t1\necho \"EXIT=$?\"")
	term.WaitFor("[k/o/A]")
	term.Keys("k", "Enter")
	s := term.WaitFor("EXIT=")
	if !strings.Contains(s, "EXIT=0") || !strings.Contains(s, "rewound to k1") || strings.Contains(s, "changed since plan") {
		t.Fatalf("the rewind after answering keep:\n%s", s)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "notes.txt")); string(b) != "mine\n" {
		t.Errorf("notes.txt is %q, want the person's edit kept", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "crlf.txt")); string(b) != "one\r\ntwo\r\n" {
		t.Errorf("crlf.txt is %q, want its CRLF bytes back", b)
	}
}

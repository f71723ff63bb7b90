package checkpoint_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPromptKeepOnTerminal answers the outside-edits prompt of a real
// terminal (tmux: send-keys, capture-pane): "k" keeps the person's file
// and applies the plan chosen, although that plan holds a file whose only
// change is CRLF to LF under text=auto (raw bytes that a plan built in two
// calls once left out, so the applied plan had another id).
func TestPromptKeepOnTerminal(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed, so no real terminal can be driven (.ci/run installs it)")
	}
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

	// The terminal runs a script that has the test's environment and
	// reports the exit status on the screen.
	var script strings.Builder
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		if name != "" && !strings.ContainsAny(name, " ;()") {
			fmt.Fprintf(&script, "export %s='%s'\n", name, strings.ReplaceAll(value, "'", `'\''`))
		}
	}
	fmt.Fprintf(&script, "cd '%s'\ngit rewind t1\necho \"EXIT=$?\"\nsleep 60\n", dir)
	scriptPath := filepath.Join(t.TempDir(), "rewind.sh")
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
	tmux("new-session", "-d", "-x", "160", "-y", "50", "sh "+scriptPath)
	defer exec.Command("tmux", "-S", socket, "kill-server").Run()
	screen := func() string { return tmux("capture-pane", "-p", "-J", "-S", "-100") }
	waitFor := func(text string) string {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			s := screen()
			if strings.Contains(s, text) {
				return s
			}
			if time.Now().After(deadline) {
				t.Fatalf("the terminal never showed %q; it shows:\n%s", text, s)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	waitFor("[k/o/A]")
	tmux("send-keys", "k", "Enter")
	s := waitFor("EXIT=")
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

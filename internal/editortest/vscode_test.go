//go:build linux

package editortest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/agenttest"
	"github.com/git-checkpoint/git-checkpoint/internal/gittest"
)

// The prompts of the two turns the repository gets, and what the view
// shows of them (their first lines).
const (
	prompt1 = "Add a greeting\nand a second line to a.txt"
	prompt2 = "Remove the notes"
	first1  = "Add a greeting"
)

// TestEditorVSCode runs the VS Code extension in code-server in a real
// Chromium: a repository where two agent turns (Claude Code's hook
// payloads through `git checkpoint hook claude`) changed files; the view
// must list both prompts, open the first turn's diff, and undo that turn
// through its modal (the plan shown, then applied); the files on disk must
// then be those of the turn's start with the second turn's change kept.
// A checkpoint taken on the command line must show in the view with no
// refresh (the journal's watcher). A second page undoes the rewind from
// the view's title bar, and the files must be back.
//
// Screenshots of every step go to $GIT_CHECKPOINT_SCREENSHOTS/TestEditorVSCode
// when that variable names a directory, else to the test's artifact
// directory (kept with go test -artifacts); the test logs their paths.
func TestEditorVSCode(t *testing.T) {
	top := agenttest.ModuleRoot(t)
	prefix := editorsDir(t)
	ext := filepath.Join(top, "editors", "vscode")
	checkPins(t, prefix, filepath.Join(ext, "package.json"), filepath.Join(ext, "test", "package.json"))
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		agenttest.Missing(t, "editortest: Debian's chromium is not installed, so code-server cannot be driven in a browser\nhint: apt-get install chromium (.ci/run does)")
	}
	node := agenttest.NodePath(t)
	bin := agenttest.BuildTools(t, func(rel string) bool { return strings.HasPrefix(rel, "editors/") })

	vsix := filepath.Join(t.TempDir(), "git-checkpoint.vsix")
	run(t, nil, append(os.Environ(), "PATH="+node+string(os.PathListSeparator)+os.Getenv("PATH"), "TOOLS="+filepath.Join(prefix, "node_modules")),
		filepath.Join(ext, "build.sh"), vsix)

	r := turns(t, bin)
	env := serverEnv(t, r, bin, node)
	url := serve(t, env, filepath.Join(prefix, "node_modules", ".bin", "code-server"), vsix, r.Dir)
	shots := screenshots(t)

	cfg := map[string]any{
		"phase":      "undo-turn",
		"url":        url,
		"chromium":   chromium,
		"shots":      shots,
		"prompts":    []string{prompt2, first1},
		"undo":       first1,
		"file":       "greet.txt",
		"text":       "hello",
		"checkpoint": []string{"git", "-C", r.Dir, "checkpoint", "-m", "from the terminal"},
		"label":      "from the terminal",
	}
	drive(t, env, node, filepath.Join(prefix, "node_modules"), cfg)

	// The turn's changes are gone (greet.txt, which it created, too), the
	// second turn's deletion is kept.
	files(t, r.Dir, map[string]string{"a.txt": "one\n", "notes.txt": "", "greet.txt": ""})
	list := checkpoints(t, r, bin)
	if !slices.ContainsFunc(list, func(c record) bool { return c.Reason == "pre_rewind" }) {
		t.Errorf("no safety checkpoint after the undo: %+v", list)
	}
	if list[0].Label != "from the terminal" {
		t.Errorf("newest checkpoint %+v, want the one the driver took", list[0])
	}

	cfg["phase"] = "undo-rewind"
	drive(t, env, node, filepath.Join(prefix, "node_modules"), cfg)
	files(t, r.Dir, map[string]string{"a.txt": "one\ntwo\n", "greet.txt": "hello\n", "notes.txt": ""})

	entries, err := os.ReadDir(shots)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Logf("screenshot %s", filepath.Join(shots, e.Name()))
	}
}

// turns makes a repository where Claude Code's hooks recorded two turns:
// the first modifies a.txt and creates greet.txt, the second deletes
// notes.txt.
func turns(t *testing.T, bin string) *gittest.Repo {
	t.Helper()
	r := gittest.NewRepoWith(t, map[string]string{"a.txt": "one\n", "notes.txt": "mine\n"})
	env := append(slices.Clip(r.Env), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "CLAUDE_PROJECT_DIR="+r.Dir)
	session := "7f1c2a3b-0d4e-4f56-8a9b-0c1d2e3f4a5b"
	hook := func(event string, extra map[string]any) {
		payload := map[string]any{
			"session_id":      session,
			"transcript_path": filepath.Join(r.Dir, ".git", "transcript.jsonl"),
			"cwd":             r.Dir,
			"hook_event_name": event,
		}
		for k, v := range extra {
			payload[k] = v
		}
		b, _ := json.Marshal(payload)
		run(t, strings.NewReader(string(b)), env, "git", "-C", r.Dir, "checkpoint", "hook", "claude")
	}
	hook("UserPromptSubmit", map[string]any{"prompt": prompt1})
	r.Write(map[string]string{"a.txt": "one\ntwo\n", "greet.txt": "hello\n"})
	hook("Stop", nil)
	hook("UserPromptSubmit", map[string]any{"prompt": prompt2})
	if err := os.Remove(filepath.Join(r.Dir, "notes.txt")); err != nil {
		t.Fatal(err)
	}
	hook("Stop", nil)

	var log struct {
		Turns []struct{ ID, Prompt string }
	}
	if err := json.Unmarshal([]byte(run(t, nil, env, "git", "-C", r.Dir, "checkpoint", "log", "--json")), &log); err != nil {
		t.Fatal(err)
	}
	if len(log.Turns) != 2 || log.Turns[0].Prompt != prompt2 || log.Turns[1].Prompt != prompt1 {
		t.Fatalf("git checkpoint log --json: %+v, want the two turns", log.Turns)
	}
	return r
}

// serverEnv is code-server's environment: the repository's hermetic git
// (its HOME, no global configuration, a fixed identity), the pinned Node
// first on PATH, and a login shell profile that puts the binaries on
// PATH. VS Code gives extensions the environment of the user's login shell
// (it runs $SHELL -l to read it), which is where a person puts
// git-checkpoint on PATH too.
func serverEnv(t *testing.T, r *gittest.Repo, bin, node string) []string {
	t.Helper()
	var home string
	for _, kv := range r.Env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v
		}
	}
	profile := fmt.Sprintf("export PATH=%s:\"$PATH\"\n", bin)
	for _, name := range []string{".profile", ".bashrc"} {
		if err := os.WriteFile(filepath.Join(home, name), []byte(profile), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := node + string(os.PathListSeparator) + bin + string(os.PathListSeparator) + os.Getenv("PATH")
	return append(slices.Clip(r.Env), "PATH="+path, "SHELL=/bin/bash")
}

// listening is code-server's line that names the port it chose.
var listening = regexp.MustCompile(`HTTP server listening on (http://127\.0\.0\.1:\d+)/`)

// serve installs the extension into a fresh extensions directory and
// starts code-server on 127.0.0.1 at a port the system picks, without
// authentication, with a fresh user-data directory whose settings keep the
// window quiet (no trust prompt, no welcome page, no chat). It returns
// the address that opens folder; the server is stopped when the test ends.
func serve(t *testing.T, env []string, codeServer, vsix, folder string) string {
	t.Helper()
	dir := t.TempDir()
	userData, extensions := filepath.Join(dir, "user-data"), filepath.Join(dir, "extensions")
	settings := map[string]any{
		"security.workspace.trust.enabled":             false,
		"workbench.startupEditor":                      "none",
		"workbench.secondarySideBar.defaultVisibility": "hidden",
		"chat.disableAIFeatures":                       true,
		"telemetry.telemetryLevel":                     "off",
		"extensions.autoCheckUpdates":                  false,
		"extensions.autoUpdate":                        false,
		"git.enabled":                                  false,
	}
	b, _ := json.MarshalIndent(settings, "", "  ")
	if err := os.MkdirAll(filepath.Join(userData, "User"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(userData, "User", "settings.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	install := exec.Command(codeServer, "--user-data-dir", userData, "--extensions-dir", extensions, "--install-extension", vsix)
	install.Env = env
	out, err := install.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "successfully installed") {
		t.Fatalf("code-server --install-extension %s:\n%s", vsix, out)
	}

	cmd := exec.Command(codeServer, "--auth", "none", "--bind-addr", "127.0.0.1:0",
		"--user-data-dir", userData, "--extensions-dir", extensions,
		"--disable-telemetry", "--disable-update-check", "--disable-workspace-trust",
		"--disable-getting-started-override", "--ignore-last-opened")
	cmd.Env = env
	// Its own process group: code-server runs the extension host, file
	// watchers and language servers as children, which must end with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	logPath := filepath.Join(dir, "code-server.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatalf("start code-server: %v", err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
		pw.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			t.Logf("code-server's output:\n%s", b)
		}
	})
	found := make(chan string, 1)
	go func() {
		s := bufio.NewScanner(pr)
		for s.Scan() {
			fmt.Fprintln(logFile, s.Text())
			if m := listening.FindStringSubmatch(s.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
		logFile.Close()
	}()
	select {
	case base := <-found:
		return base + "/?folder=" + folder
	case <-time.After(90 * time.Second):
		t.Fatalf("code-server did not say where it listens within 90s (its output: %s)", logPath)
		return ""
	}
}

// screenshots is the directory the driver writes its screenshots to.
func screenshots(t *testing.T) string {
	t.Helper()
	dir := t.ArtifactDir()
	if d := os.Getenv("GIT_CHECKPOINT_SCREENSHOTS"); d != "" {
		dir = filepath.Join(d, t.Name())
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// drive runs editors/vscode/test/drive.js with cfg, under the pinned Node,
// and fails the test with its output when a step fails.
func drive(t *testing.T, env []string, node, modules string, cfg map[string]any) {
	t.Helper()
	b, _ := json.Marshal(cfg)
	path := filepath.Join(t.TempDir(), "drive.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(node, "node"), filepath.Join(agenttest.ModuleRoot(t), "editors", "vscode", "test", "drive.js"), path)
	cmd.Env = append(slices.Clip(env), "NODE_PATH="+modules)
	out, err := cmd.CombinedOutput()
	t.Logf("%s:\n%s", cfg["phase"], out)
	if err != nil {
		t.Fatalf("the driver's phase %s failed: %v", cfg["phase"], err)
	}
}

// files checks the working tree's files: content "" means absent.
func files(t *testing.T, dir string, want map[string]string) {
	t.Helper()
	for name, content := range want {
		b, err := os.ReadFile(filepath.Join(dir, name))
		switch {
		case content == "" && err == nil:
			t.Errorf("%s exists, holding %q; want it absent", name, b)
		case content == "" && os.IsNotExist(err):
		case err != nil:
			t.Errorf("%s: %v", name, err)
		case string(b) != content:
			t.Errorf("%s holds %q, want %q", name, b, content)
		}
	}
}

type record struct {
	ID, Reason, Label string
}

// checkpoints is `git checkpoint list --json`, newest first.
func checkpoints(t *testing.T, r *gittest.Repo, bin string) []record {
	t.Helper()
	env := append(slices.Clip(r.Env), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	var doc struct{ Checkpoints []record }
	if err := json.Unmarshal([]byte(run(t, nil, env, "git", "-C", r.Dir, "checkpoint", "list", "--json")), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Checkpoints) == 0 {
		t.Fatal("git checkpoint list --json lists no checkpoint")
	}
	return doc.Checkpoints
}

// run runs a program in the environment env and returns its stdout,
// failing the test with its output when it fails.
func run(t *testing.T, stdin io.Reader, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = env
	cmd.Stdin = stdin
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, out, stderr.String())
	}
	return string(out)
}

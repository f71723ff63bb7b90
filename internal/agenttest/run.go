package agenttest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// DefaultTimeout bounds one agent run when Run.Timeout is zero.
const DefaultTimeout = 90 * time.Second

// Scope says where a Run's hook configuration is written.
type Scope int

const (
	// ProjectScope writes the hooks into the project directory (Claude's
	// .claude/settings.local.json, Codex's .codex/hooks.json, Gemini's
	// .gemini/settings.json, Copilot's .github/hooks/hooks.json).
	ProjectScope Scope = iota
	// UserScope writes them into the isolated home (~/.claude/settings.json,
	// $CODEX_HOME/hooks.json, ~/.gemini/settings.json,
	// ~/.copilot/hooks/hooks.json).
	UserScope
)

// Run is one headless run of an agent, started by RunClaude, RunCodex,
// RunGemini or RunCopilot.
type Run struct {
	// Dir is the project directory the agent starts in.
	Dir string
	// Home is the agent's HOME (and CODEX_HOME's parent). A fresh temporary
	// directory when empty; pass a previous Result.Home to resume a session.
	Home string
	// URL is the fake model server's base URL (Server.URL).
	URL string
	// Prompt is the user prompt of the turn.
	Prompt string
	// Hooks is the hook configuration as the agent reads it: the JSON of a
	// settings file for Claude and Gemini, of hooks.json for Codex. Empty
	// writes none.
	Hooks string
	// Scope says where Hooks is written.
	Scope Scope
	// Config is extra agent configuration: TOML added to Codex's
	// config.toml (top-level keys, such as notify, then any tables, such
	// as install --mcp's; see RunCodex), or a JSON object whose
	// keys are added to Claude's or Gemini's user settings.
	Config string
	// Args are extra command-line arguments. Claude and Gemini get them
	// after their own flags (-p PROMPT comes first); Codex gets them after
	// "exec" and its flags, before the prompt.
	Args []string
	// Env is extra environment, KEY=VALUE, applied last.
	Env []string
	// Timeout bounds the run; DefaultTimeout when zero.
	Timeout time.Duration
	// Stdin, when set, is the agent's standard input: Claude Code's
	// --input-format stream-json reads one user message a line from it,
	// so that one process runs many turns, as a person's session does.
	Stdin io.Reader
	// Output, when set, receives the agent's standard output as it comes
	// (Result.Stdout still holds all of it), so that a caller can send
	// the next message on Stdin once a turn's result is out.
	Output io.Writer
}

// Result is what one run left.
type Result struct {
	Stdout, Stderr string
	// Err is nil when the agent exited 0; otherwise its exit error or a
	// timeout.
	Err error
	// Home is the HOME the agent ran with.
	Home    string
	Elapsed time.Duration
}

// String summarizes the run for a failing test's log.
func (r *Result) String() string {
	return fmt.Sprintf("err: %v (after %s)\n--- stdout\n%s\n--- stderr\n%s", r.Err, r.Elapsed.Round(time.Millisecond), tail(r.Stdout, 6000), tail(r.Stderr, 6000))
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}

// launch is what an agent-specific runner prepared.
type launch struct {
	bin  string
	args []string
	env  []string
}

// start runs one agent to completion (or timeout) and kills whatever it
// left running.
func start(t testing.TB, run Run, l launch) *Result {
	t.Helper()
	timeout := run.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()

	marker := newRunMarker()
	cmd := exec.CommandContext(ctx, l.bin, l.args...)
	cmd.Dir = run.Dir
	// PWD names run.Dir: an inherited one would name the test's own
	// directory, and OpenCode takes its project from PWD, not from the
	// directory it runs in.
	cmd.Env = append(append(l.env, "PWD="+run.Dir), append(run.Env, marker)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if run.Output != nil {
		cmd.Stdout = io.MultiWriter(&stdout, run.Output)
	}
	cmd.Stdin = run.Stdin
	ownProcessGroup(cmd)
	cmd.Cancel = func() error { return killRun(cmd, marker) }
	// A hook or tool that outlives the agent may hold its output pipes open.
	cmd.WaitDelay = 5 * time.Second

	began := time.Now()
	err := cmd.Run()
	elapsed := time.Since(began)
	if ctx.Err() == nil {
		settleHooks(marker, 10*time.Second)
	}
	// Background tools, subagents and hooks die with the run.
	killRun(cmd, marker)
	if ctx.Err() == context.DeadlineExceeded {
		err = fmt.Errorf("agenttest: %s timed out after %s: %w", filepath.Base(l.bin), timeout, errors.Join(err, ctx.Err()))
	}
	return &Result{Stdout: stdout.String(), Stderr: stderr.String(), Err: err, Home: run.Home, Elapsed: elapsed}
}

// baseEnv is the test's environment without what would make the agent
// reach a real service, read the developer's own configuration, or go
// through a proxy, plus an isolated HOME, XDG directories under home, and a
// TMPDIR of its own.
func baseEnv(t testing.TB, home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if dropEnv(k) {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
		"XDG_DATA_HOME="+filepath.Join(home, ".local", "share"),
		"XDG_STATE_HOME="+filepath.Join(home, ".local", "state"),
		"TMPDIR="+tempDir(t),
		"NO_PROXY=127.0.0.1,localhost",
		"no_proxy=127.0.0.1,localhost",
	)
}

func dropEnv(k string) bool {
	switch strings.ToUpper(k) {
	case "HOME", "USERPROFILE", "TMPDIR", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY",
		"NODE_OPTIONS", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "IS_SANDBOX",
		"GH_TOKEN", "GITHUB_TOKEN", "GH_HOST":
		return true
	}
	for _, p := range []string{"XDG_", "ANTHROPIC_", "CLAUDE", "CODEX_", "OPENAI_", "GEMINI_", "GOOGLE_", "VERTEX", "DISABLE_", "COPILOT_", "CLINE_"} {
		if strings.HasPrefix(strings.ToUpper(k), p) {
			return true
		}
	}
	return false
}

// prepareHome sets run.Home to a temporary directory when empty.
func prepareHome(t testing.TB, run *Run) {
	t.Helper()
	if run.Home == "" {
		run.Home = t.TempDir()
	}
	if run.Dir == "" {
		t.Fatalf("agenttest: Run.Dir is empty")
	}
}

// tempDir makes a TMPDIR for one run, removed when the test ends. The
// agents keep task output and sockets under TMPDIR and leave them there.
// Its path is short on purpose: a Unix socket path may not be longer than
// about 100 bytes, and t.TempDir paths hold the test's name.
func tempDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "agt")
	if err != nil {
		t.Fatalf("agenttest: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// writeFile writes text to path, creating its directory.
func writeFile(t testing.TB, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatalf("agenttest: %v", err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatalf("agenttest: %v", err)
	}
}

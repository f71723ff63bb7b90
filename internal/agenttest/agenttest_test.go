package agenttest

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The shell command every agent runs in its scripted turn: it creates,
// deletes and appends to a file, the changes a checkpoint must see that a
// file-editing tool's own record does not.
const shellEdit = "echo new > new.txt && rm gone.txt && echo two >> log.txt"

// scenario is a fresh repository and a hook log outside it.
type scenario struct {
	dir string // the repository
	log string // where hooks append their payloads
}

func newScenario(t *testing.T) scenario {
	dir := NewRepo(t, map[string]string{"gone.txt": "delete me\n", "log.txt": "one\n"})
	return scenario{dir: dir, log: filepath.Join(t.TempDir(), "hooks.jsonl")}
}

func (s scenario) path(name string) string { return filepath.Join(s.dir, name) }

// checkEdits checks that the scripted write and shellEdit happened.
func (s scenario) checkEdits(t *testing.T, written string) {
	t.Helper()
	want := map[string]string{written: "written by the agent\n", "new.txt": "new\n", "log.txt": "one\ntwo\n"}
	for name, content := range want {
		got, err := os.ReadFile(s.path(name))
		if err != nil || string(got) != content {
			t.Errorf("%s: got %q, %v; want %q", name, got, err, content)
		}
	}
	if _, err := os.Stat(s.path("gone.txt")); !os.IsNotExist(err) {
		t.Errorf("gone.txt: still there (%v)", err)
	}
}

// checkEvents checks the hook log's event names and that every payload
// names the same, non-empty session.
func checkEvents(t *testing.T, events []HookEvent, want []string) {
	t.Helper()
	if got := EventNames(events); !slices.Equal(got, want) {
		t.Errorf("hook events:\n got %q\nwant %q", got, want)
	}
	if len(events) == 0 {
		return
	}
	session := events[0].Session()
	if session == "" {
		t.Errorf("first hook payload has no session id: %v", events[0])
	}
	for i, e := range events {
		if e.Session() != session {
			t.Errorf("hook payload %d (%s): session %q, want %q", i, e.Name(), e.Session(), session)
		}
	}
}

// mustSucceed fails the test when the run failed, with what it printed and
// what the server saw.
func mustSucceed(t *testing.T, res *Result, srv *Server) {
	t.Helper()
	t.Logf("agent ran %s", res.Elapsed.Round(1e6))
	if res.Err != nil {
		t.Fatalf("agent failed: %s\n--- requests\n%s", res, srv.Dump())
	}
}

var claudeEvents = []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse",
	"PostToolUseFailure", "Stop", "SubagentStop", "SessionEnd"}

func TestClaudeTurn(t *testing.T) {
	s := newScenario(t)
	srv := NewClaudeServer(t, Script{Steps: []Step{
		Do(ClaudeWrite(s.path("written.txt"), "written by the agent\n")),
		Do(ClaudeBash(shellEdit)),
		Say("All done."),
	}})
	res := RunClaude(t, Run{Dir: s.dir, URL: srv.URL, Prompt: "edit the files",
		Hooks: HookConfig(LogCommand(s.log), claudeEvents...), Env: GitEnv()})
	mustSucceed(t, res, srv)
	s.checkEdits(t, "written.txt")
	checkEvents(t, ReadHookLog(t, s.log), []string{"SessionStart", "UserPromptSubmit",
		"PreToolUse:Write", "PostToolUse:Write", "PreToolUse:Bash", "PostToolUse:Bash", "Stop", "SessionEnd"})
}

var codexEvents = []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"}

func TestCodexTurn(t *testing.T) {
	s := newScenario(t)
	srv := NewCodexServer(t, Script{Steps: []Step{
		Do(CodexPatch("*** Begin Patch\n*** Add File: written.txt\n+written by the agent\n*** End Patch\n")),
		Do(CodexShell(shellEdit)),
		Say("All done."),
	}})
	res := RunCodex(t, Run{Dir: s.dir, URL: srv.URL, Prompt: "edit the files",
		Hooks: HookConfig(LogCommand(s.log), codexEvents...), Config: CodexNotify(s.log), Env: GitEnv()})
	mustSucceed(t, res, srv)
	s.checkEdits(t, "written.txt")
	checkEvents(t, ReadHookLog(t, s.log), []string{"SessionStart", "UserPromptSubmit",
		"PreToolUse:apply_patch", "PostToolUse:apply_patch", "PreToolUse:Bash", "PostToolUse:Bash",
		"Stop", "agent-turn-complete", "SessionEnd"})
}

var geminiEvents = []string{"SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "AfterAgent", "SessionEnd"}

func TestGeminiTurn(t *testing.T) {
	s := newScenario(t)
	srv := NewGeminiServer(t, Script{Steps: []Step{
		Do(GeminiWriteFile(s.path("written.txt"), "written by the agent\n")),
		Do(GeminiShell(shellEdit)),
		Say("All done."),
	}})
	res := RunGemini(t, Run{Dir: s.dir, URL: srv.URL, Prompt: "edit the files",
		Hooks: HookConfig(LogCommand(s.log), geminiEvents...), Env: GitEnv()})
	mustSucceed(t, res, srv)
	s.checkEdits(t, "written.txt")
	checkEvents(t, ReadHookLog(t, s.log), []string{"SessionStart", "BeforeAgent",
		"BeforeTool:write_file", "AfterTool:write_file", "BeforeTool:run_shell_command", "AfterTool:run_shell_command",
		"AfterAgent", "SessionEnd"})
}

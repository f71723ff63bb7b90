package agenttest

import (
	"slices"
	"testing"
)

var clineEvents = []string{"TaskStart", "TaskResume", "UserPromptSubmit", "PreToolUse", "PostToolUse",
	"TaskComplete", "TaskCancel", "TaskError", "SessionShutdown"}

// Cline runs its hooks by file name and sends its runtime names in
// hookName; TaskStart and TaskComplete run detached, PreToolUse and
// PostToolUse are awaited, so the tools' come in order.
func TestClineTurn(t *testing.T) {
	s := newScenario(t)
	srv := NewChatServer(t, Script{Steps: []Step{
		Do(ClineEditor(s.path("written.txt"), "written by the agent\n")),
		Do(ClineCommands(shellEdit)),
		Say("All done."),
	}})
	ClineHooks(t, s.dir, LogCommand(s.log), clineEvents...)
	res := RunCline(t, Run{Dir: s.dir, URL: srv.URL, Prompt: "edit the files", Env: GitEnv()})
	mustSucceed(t, res, srv)
	s.checkEdits(t, "written.txt")
	var tools []string
	var names []string
	for _, e := range ReadHookLog(t, s.log) {
		name := e.str("hookName")
		names = append(names, name)
		if r, ok := e["tool_result"].(map[string]any); ok {
			tools = append(tools, name+":"+r["name"].(string))
		}
	}
	t.Logf("events: %q", names)
	if want := []string{"tool_result:editor", "tool_result:run_commands"}; !slices.Equal(tools, want) {
		t.Errorf("tool results %q, want %q", tools, want)
	}
	for _, want := range []string{"agent_start", "agent_end"} {
		if !slices.Contains(names, want) {
			t.Errorf("no %s in %q", want, names)
		}
	}
}

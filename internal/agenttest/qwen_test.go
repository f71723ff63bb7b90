package agenttest

import "testing"

var qwenEvents = []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse",
	"PostToolUseFailure", "Stop", "SubagentStop", "SessionEnd"}

// Qwen Code sends UserPromptSubmit again before each model request of the
// turn (with an empty prompt), and no SessionEnd in a headless run.
func TestQwenTurn(t *testing.T) {
	s := newScenario(t)
	srv := NewChatServer(t, Script{Steps: []Step{
		Do(QwenWriteFile(s.path("written.txt"), "written by the agent\n")),
		Do(QwenShell(shellEdit)),
		Say("All done."),
	}})
	res := RunQwen(t, Run{Dir: s.dir, URL: srv.URL, Prompt: "edit the files",
		Hooks: HookConfig(LogCommand(s.log), qwenEvents...), Env: GitEnv()})
	mustSucceed(t, res, srv)
	s.checkEdits(t, "written.txt")
	checkEvents(t, ReadHookLog(t, s.log), []string{"SessionStart", "UserPromptSubmit",
		"PreToolUse:write_file", "PostToolUse:write_file", "UserPromptSubmit",
		"PreToolUse:run_shell_command", "PostToolUse:run_shell_command", "UserPromptSubmit", "Stop"})
}

func TestQwenContextInjection(t *testing.T) {
	s := newScenario(t)
	srv := NewChatServer(t, Script{})
	res := RunQwen(t, Run{Dir: s.dir, URL: srv.URL, Prompt: "say hello", Env: GitEnv(),
		Hooks: contextHook(s.log, "UserPromptSubmit", note)})
	mustSucceed(t, res, srv)
	checkNoteReachedModel(t, s, srv, "say hello", note)
}

package agents

import (
	"path/filepath"

	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// Qwen is Qwen Code (npm @qwen-code/qwen-code).
const Qwen = "qwen"

// qwen's hooks are Claude Code's, in the same JSON shape and with the same
// payload fields (docs/agents.md, testdata/qwen/), with two differences
// seen when it ran: it sends UserPromptSubmit again before each model
// request of a turn, with an empty prompt, so only the one carrying the
// person's prompt starts a turn (Continued); and a foreground subagent's
// tool calls come in the main session, marked with agent_id. Its tools
// are Gemini CLI's (write_file, edit, run_shell_command; the shell names
// no files). It adds every UserPromptSubmit answer's additionalContext to
// the model's context, which is how a rewind's note reaches it; a
// systemMessage is not shown in headless runs, so failures are not told
// there. A subagent may run in the background and write after Stop, so
// SubagentStop ends a turn too, as with Claude Code. --resume appends to
// a session and --fork-session copies a whole one, so a fork is faithful
// only at the end of a session's last turn, as OpenCode's is.
var qwen = Agent{
	Name: Qwen,
	Events: []HookEvent{
		{Name: "UserPromptSubmit", Reason: store.ReasonTurnStart, Hooked: true, Note: true, Continued: true},
		{Name: "PostToolUse", Reason: store.ReasonTool, Hooked: true},
		{Name: "PostToolUseFailure", Reason: store.ReasonTool, Hooked: true},
		{Name: "Stop", Reason: store.ReasonTurnEnd, Hooked: true},
		{Name: "SubagentStop", Reason: store.ReasonTurnEnd, Hooked: true},
		{Name: "SessionStart"}, {Name: "PreToolUse"}, {Name: "PostToolBatch"}, {Name: "SessionEnd"},
		{Name: "SubagentStart"}, {Name: "Notification"}, {Name: "PreCompact"}, {Name: "PostCompact"},
		{Name: "UserPromptExpansion"}, {Name: "MessageDisplay"}, {Name: "SessionDelete"},
		{Name: "PermissionRequest"}, {Name: "PermissionDenied"}, {Name: "StopFailure"},
		{Name: "TodoCreated"}, {Name: "TodoCompleted"}, {Name: "InstructionsLoaded"},
	},
	ProjectDirEnv: "QWEN_PROJECT_DIR",
	Scopes:        []string{ScopeLocal, ScopeProject, ScopeUser},
	configs: []config{settingsFile{
		name:    "settings.json",
		where:   ".qwen/settings.json or ~/.qwen/settings.json",
		path:    qwenSettings,
		timeout: HookTimeout,
	}},
	mcp: &mcpPlace{
		where: ".qwen/settings.json or ~/.qwen/settings.json",
		file:  qwenSettings,
		keys:  func(string, Env) []string { return []string{"mcpServers"} },
		entry: `{"command":"git-checkpoint","args":["mcp"]}`,
	},
	resume: qwenResume,
}

// qwenSettings is Qwen Code's settings file: one for the tree (local and
// project are the same file) and the user's, in $QWEN_HOME when set.
func qwenSettings(scope string, env Env) string {
	if scope != ScopeUser {
		return filepath.Join(env.Top, ".qwen", "settings.json")
	}
	if d := env.Getenv("QWEN_HOME"); d != "" {
		return filepath.Join(d, "settings.json")
	}
	return filepath.Join(env.Home, ".qwen", "settings.json")
}

// qwenResume forks the whole session, which is faithful only when no
// later turn of that session started.
func qwenResume(recs store.Records, end int) *Resume {
	if startedAfter(recs, end) {
		return nil
	}
	return &Resume{Agent: Qwen, Command: "qwen --resume " + shellWord(recs.Session(end)) + " --fork-session"}
}

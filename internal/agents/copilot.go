package agents

import (
	"path/filepath"

	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// Copilot is GitHub Copilot CLI.
const Copilot = "copilot"

// copilot's hooks are configured under the PascalCase event names, for
// which Copilot CLI sends payloads shaped like Claude Code's (snake_case
// fields, hook_event_name, its tools under Claude Code's names: Write,
// Edit, Bash, Read); under its own camelCase names the payload does not
// say which event it is. Its entries are flat ({"type": "command",
// "bash", "timeoutSec"}), not grouped. A subagent's events come as a
// session of their own, with its prompt and stop (see Parse), and end
// with SubagentStop in the main session. It reads additionalContext at
// the top of a hook's output, and shows no systemMessage. It resumes a
// session only by adding to it (--resume), and forks one only from its
// interactive /fork, so no resume is offered.
var copilot = Agent{
	Name: Copilot,
	Events: []HookEvent{
		{Name: "UserPromptSubmit", Reason: store.ReasonTurnStart, Hooked: true, Note: true},
		{Name: "PostToolUse", Reason: store.ReasonTool, Hooked: true},
		{Name: "PostToolUseFailure", Reason: store.ReasonTool, Hooked: true},
		{Name: "Stop", Reason: store.ReasonTurnEnd, Hooked: true},
		{Name: "SubagentStop", Reason: store.ReasonTurnEnd, Hooked: true},
		{Name: "SessionStart"}, {Name: "SessionEnd"}, {Name: "PreToolUse"}, {Name: "SubagentStart"},
		{Name: "PermissionRequest"}, {Name: "Notification"}, {Name: "PreCompact"}, {Name: "ErrorOccurred"},
	},
	ProjectDirEnv: "COPILOT_PROJECT_DIR",
	Scopes:        []string{ScopeLocal, ScopeProject, ScopeUser},
	flatContext:   true,
	configs: []config{settingsFile{
		name:    "settings.json",
		where:   ".github/copilot/settings.local.json, .github/copilot/settings.json or ~/.copilot/settings.json",
		path:    copilotSettings,
		timeout: HookTimeout,
		flat:    copilotEntry,
	}},
	installNotes: func(scope string) []string {
		if scope == ScopeUser {
			return nil
		}
		return []string{"Copilot CLI runs a repository's hooks only in a folder it trusts: start 'copilot' here once and trust the folder"}
	},
}

// copilotSettings is the Copilot CLI settings file for scope, whose
// "hooks" it runs as the hooks of .github/hooks/*.json: the repository's
// two (settings.local.json is the personal one) and the user's, in
// $COPILOT_HOME or ~/.copilot.
func copilotSettings(scope string, env Env) string {
	switch scope {
	case ScopeUser:
		if d := env.Getenv("COPILOT_HOME"); d != "" {
			return filepath.Join(d, "settings.json")
		}
		return filepath.Join(env.Home, ".copilot", "settings.json")
	case ScopeProject:
		return filepath.Join(env.Top, ".github", "copilot", "settings.json")
	}
	return filepath.Join(env.Top, ".github", "copilot", "settings.local.json")
}

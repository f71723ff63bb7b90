package agents

import (
	"cmp"
	"encoding/json"
	"path/filepath"

	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// Cursor is Cursor's agent, as its CLI (cursor-agent) and its editor run
// it.
const Cursor = "cursor"

// cursor's hooks are in .cursor/hooks.json or ~/.cursor/hooks.json,
// {"version": 1, "hooks": {EVENT: [{"command", "timeout"}]}}, run with a
// JSON payload on stdin (docs/agents.md names the sources; it could not
// run here: it installs only through a download script and needs a
// Cursor account). Its payloads are its own: conversation_id is the
// session, workspace_roots the project; afterFileEdit names the one file
// an edit changed (file_path, absolute), afterShellExecution the command
// it ran (which names no files). beforeSubmitPrompt starts a turn and
// stop ends it, but only in the interactive agent: in print mode (-p)
// neither fires, so each edit and command is still captured but no turn
// is. One unknown event name makes Cursor ignore the whole file, without
// a word, so install writes only these four, which every version with
// hooks knows. beforeSubmitPrompt cannot add to the model's context, so
// there is no note; --resume appends to a chat, so there is no resume.
var cursor = Agent{
	Name: Cursor,
	Events: []HookEvent{
		{Name: "beforeSubmitPrompt", Reason: store.ReasonTurnStart, Hooked: true},
		{Name: "afterFileEdit", Reason: store.ReasonTool, Hooked: true},
		{Name: "afterShellExecution", Reason: store.ReasonTool, Hooked: true},
		{Name: "stop", Reason: store.ReasonTurnEnd, Hooked: true},
		{Name: "sessionStart"}, {Name: "sessionEnd"}, {Name: "preToolUse"}, {Name: "postToolUse"},
		{Name: "postToolUseFailure"}, {Name: "subagentStart"}, {Name: "subagentStop"},
		{Name: "beforeShellExecution"}, {Name: "beforeMCPExecution"}, {Name: "afterMCPExecution"},
		{Name: "beforeReadFile"}, {Name: "afterAgentResponse"}, {Name: "afterAgentThought"},
		{Name: "preCompact"}, {Name: "beforeTabFileRead"}, {Name: "afterTabFileEdit"},
	},
	ProjectDirEnv: "CURSOR_PROJECT_DIR",
	Scopes:        []string{ScopeLocal, ScopeProject, ScopeUser},
	reshape:       cursorPayload,
	configs: []config{settingsFile{
		name:    "hooks.json",
		where:   ".cursor/hooks.json or ~/.cursor/hooks.json",
		path:    cursorHooks,
		timeout: HookTimeout,
		flat:    cursorEntry,
		version: 1,
	}},
	installNotes: func(scope string) []string {
		return []string{"Cursor's print mode (cursor-agent -p) runs no beforeSubmitPrompt or stop hook: its edits and commands are captured, its turns are not"}
	},
}

// cursorHooks is Cursor's hooks file: the project's (local and project
// are the same file) or the user's.
func cursorHooks(scope string, env Env) string {
	if scope == ScopeUser {
		return filepath.Join(env.Home, ".cursor", "hooks.json")
	}
	return filepath.Join(env.Top, ".cursor", "hooks.json")
}

// cursorPayload reads Cursor's fields as Claude Code's: the conversation
// is the session, the first workspace root the directory when no cwd is
// given, and the two tool events become calls of an Edit tool that names
// its file and of a Shell tool that names its command.
func cursorPayload(p *payload) {
	p.SessionID = cmp.Or(p.ConversationID, p.SessionID)
	if p.Cwd == "" && len(p.WorkspaceRoots) > 0 {
		p.Cwd = p.WorkspaceRoots[0]
	}
	switch p.HookEventName {
	case "afterFileEdit":
		p.ToolName = "Edit"
		p.ToolInput, _ = json.Marshal(map[string]string{"file_path": p.FilePath})
	case "afterShellExecution":
		p.ToolName = "Shell"
		p.ToolInput, _ = json.Marshal(map[string]string{"command": p.Command})
	}
}

package agents

import (
	"path/filepath"

	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// Claude is Claude Code.
const Claude = "claude"

// claude's events (DESIGN section 7). PostToolUseFailure counts like
// PostToolUse: a failed Bash command may have changed files before it
// failed. A background subagent can write after the main agent's Stop, so
// SubagentStop ends a turn too; its last_assistant_message is the
// subagent's, which is not in the main transcript, so it names no reply.
// A pending note goes out on UserPromptSubmit only: Claude Code 2.1 drops
// the context SessionStart adds when a session is resumed with
// --resume-session-at, which is exactly how a rewind's resume command
// starts one. The other known events take nothing: writes are seen after
// the tool ran.
var claude = Agent{
	Name:    Claude,
	carried: true,
	Events: []HookEvent{
		{Name: "UserPromptSubmit", Reason: store.ReasonTurnStart, Hooked: true, Note: true},
		{Name: "PostToolUse", Reason: store.ReasonTool, Hooked: true},
		{Name: "PostToolUseFailure", Reason: store.ReasonTool, Hooked: true},
		{Name: "Stop", Reason: store.ReasonTurnEnd, Hooked: true, LastLine: true, Reply: true},
		{Name: "SubagentStop", Reason: store.ReasonTurnEnd, Hooked: true, LastLine: true},
		{Name: "SessionStart"}, {Name: "PreToolUse"}, {Name: "PostToolBatch"}, {Name: "SessionEnd"},
		{Name: "SubagentStart"}, {Name: "Notification"}, {Name: "PreCompact"}, {Name: "CwdChanged"},
		{Name: "MessageDisplay"},
	},
	ProjectDirEnv: "CLAUDE_PROJECT_DIR",
	Scopes:        []string{ScopeLocal, ScopeProject, ScopeUser},
	Messages:      true,
	configs: []config{settingsFile{
		name:    "settings.json",
		where:   ".claude/settings.local.json, .claude/settings.json or ~/.claude/settings.json",
		path:    claudeSettings,
		timeout: HookTimeout,
	}},
	installNotes: func(scope string) []string {
		if scope == ScopeUser {
			return nil
		}
		return []string{"Claude Code reads project settings in the directory it starts in: start it at the top of the working tree"}
	},
	mcp: &mcpPlace{
		where: ".mcp.json (--scope project), or ~/.claude.json (local: in the project's entry; user: at its top)",
		file:  claudeMCPFile,
		keys:  claudeMCPKeys,
		entry: `{"type":"stdio","command":"git-checkpoint","args":["mcp"]}`,
		notes: func(scope string) []string {
			if scope == ScopeProject {
				return []string{"Claude Code asks each person to approve the servers of .mcp.json (or /mcp) before it starts them"}
			}
			return nil
		},
	},
	resume: claudeResume,
}

// claudeMCPFile is where Claude Code reads MCP servers, as `claude mcp
// add --scope` writes them: .mcp.json at the top of the tree for the
// project, else its own state file ~/.claude.json (in
// $CLAUDE_CONFIG_DIR when set), which also holds each project's.
func claudeMCPFile(scope string, env Env) string {
	if scope == ScopeProject {
		return filepath.Join(env.Top, ".mcp.json")
	}
	if d := env.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return filepath.Join(d, ".claude.json")
	}
	return filepath.Join(env.Home, ".claude.json")
}

// claudeMCPKeys lead to the servers in claudeMCPFile: a local server is
// in the entry of the project, by its path.
func claudeMCPKeys(scope string, env Env) []string {
	if scope == ScopeLocal {
		return []string{"projects", env.Top, "mcpServers"}
	}
	return []string{"mcpServers"}
}

// claudeConfigDir is Claude Code's directory of the user's settings,
// plugins and transcripts: $CLAUDE_CONFIG_DIR, else ~/.claude; "" when
// neither is known.
func claudeConfigDir(env Env) string {
	if d := env.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return d
	}
	if env.Home == "" {
		return ""
	}
	return filepath.Join(env.Home, ".claude")
}

// claudeSettings is Claude Code's settings file for scope; the scopes are
// named after its files.
func claudeSettings(scope string, env Env) string {
	switch scope {
	case ScopeUser:
		return filepath.Join(claudeConfigDir(env), "settings.json")
	case ScopeProject:
		return filepath.Join(env.Top, ".claude", "settings.json")
	}
	return filepath.Join(env.Top, ".claude", "settings.local.json")
}

// claudeResume forks the session at the last line of the turn that ended:
// Claude Code forks a session at any transcript line, leaving the
// original as it is.
func claudeResume(recs store.Records, end int) *Resume {
	r := recs.Get(end)
	if r.TranscriptAt == "" {
		return nil
	}
	return &Resume{Agent: Claude, Command: "claude --resume " + shellWord(r.Session) +
		" --resume-session-at " + shellWord(r.TranscriptAt) + " --fork-session"}
}

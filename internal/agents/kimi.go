package agents

import (
	"path/filepath"

	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// Kimi is Kimi Code (npm @moonshot-ai/kimi-code, the TypeScript CLI).
const Kimi = "kimi"

// kimi's hooks are [[hooks]] tables in the user's config.toml, the only
// file it reads them from, with Claude Code's event names and payload
// fields (docs/agents.md, testdata/kimi/), but for the prompt, a list of
// parts. Its tools are Claude Code's names with the file in path (Write,
// Edit; Bash names none). It sends PostToolUse without waiting for the
// hook, and kills hooks still running when the turn's last reply comes:
// the last tool of a turn may go without a checkpoint of its own, and the
// turn end's, which Stop takes, holds its changes. A subagent's tools and
// its Stop come in the main session, so its writes are the person's turn's
// and its Stop a turn end the main one reuses. UserPromptSubmit's answer,
// its "message" (kimiContext), is added to the model's context. One event
// name it does not know makes it ignore every hook in the file: Events
// are the ones 2.1 knows, and install writes four that every 2.x knows.
// No resume command is printed: `kimi -r S` appends to the session, and
// `kimi fork S` is not yet driven by a test here.
var kimi = Agent{
	Name: Kimi,
	Events: []HookEvent{
		{Name: "UserPromptSubmit", Reason: store.ReasonTurnStart, Hooked: true, Note: true},
		{Name: "PostToolUse", Reason: store.ReasonTool, Hooked: true},
		{Name: "PostToolUseFailure", Reason: store.ReasonTool, Hooked: true},
		{Name: "Stop", Reason: store.ReasonTurnEnd, Hooked: true},
		{Name: "PreToolUse"}, {Name: "PermissionRequest"}, {Name: "PermissionResult"},
		{Name: "UserPromptQueued"}, {Name: "TurnStarted"}, {Name: "StopFailure"}, {Name: "Interrupt"},
		{Name: "SessionStart"}, {Name: "SessionEnd"}, {Name: "SessionHeartbeat"},
		{Name: "SubagentStart"}, {Name: "SubagentStop"}, {Name: "TaskStarted"},
		{Name: "PreCompact"}, {Name: "PostCompact"}, {Name: "Notification"},
	},
	Scopes:         []string{ScopeLocal, ScopeProject, ScopeUser},
	messageContext: true,
	configs:        []config{kimiConfig{}},
	installNotes: func(scope string) []string {
		if scope == ScopeUser {
			return nil
		}
		return []string{kimiUserOnly}
	},
	mcp: &mcpPlace{
		where: ".kimi-code/mcp.json or ~/.kimi-code/mcp.json",
		file:  kimiMCP,
		keys:  func(string, Env) []string { return []string{"mcpServers"} },
		entry: `{"command":"git-checkpoint","args":["mcp"]}`,
		notes: func(scope string) []string {
			if scope == ScopeUser {
				return nil
			}
			return []string{kimiTrust}
		},
	},
}

// kimiUserOnly is what install says of a scope of the tree.
const kimiUserOnly = "Kimi Code reads hooks from ~/.kimi-code/config.toml only: they run in every project it starts in, " +
	"and do nothing outside a git working tree"

// kimiHome is $KIMI_CODE_HOME, or ~/.kimi-code.
func kimiHome(env Env) string {
	if d := env.Getenv("KIMI_CODE_HOME"); d != "" {
		return d
	}
	return filepath.Join(env.Home, ".kimi-code")
}

// kimiMCP is Kimi Code's MCP file: the project's .kimi-code/mcp.json in
// the directory it starts in (local and project are the same file), or
// the user's, which it reads in every folder, trusted or not. It also
// reads .mcp.json at the top of the tree, Claude Code's project file:
// install leaves that one to Claude Code's install.
func kimiMCP(scope string, env Env) string {
	if scope != ScopeUser {
		return filepath.Join(env.Top, ".kimi-code", "mcp.json")
	}
	return filepath.Join(kimiHome(env), "mcp.json")
}

// kimiTrust is what install --mcp says of a scope of the tree: Kimi Code
// 2.1 starts the servers of a project's files only in a folder trusted in
// its terminal interface, which remembers the choice per directory, and
// kimi -p in any other skips them with a warning (TestAgents/kimi-mcp).
const kimiTrust = "Kimi Code starts the servers of .kimi-code/mcp.json only in a folder you trusted: " +
	"run kimi at the top of the working tree once and choose \"Trust this folder\" (kimi -p skips them until then)"

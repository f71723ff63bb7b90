package agents

import (
	"cmp"
	"path/filepath"

	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// Cline is Cline's CLI (npm cline).
const Cline = "cline"

// cline runs one executable per event, named after it, from
// .clinerules/hooks/ in the workspace or ~/Documents/Cline/Hooks/ (and
// its CLI from ~/.cline/hooks/ too), with a JSON payload on stdin:
// install writes a small shell script for each hooked event
// (clineScript). Seen with Cline CLI 3.0.65 against a fake model
// (testdata/cline/): the payload names the event in hookName under its
// own runtime names (agent_start for TaskStart, tool_result for
// PostToolUse, agent_end for TaskComplete), the session in
// sessionContext.rootSessionId, the project in workspaceRoots, and a
// tool call in tool_result {name, input}; its editor tool names its file
// in path, run_commands names none. It awaits PreToolUse and PostToolUse,
// so a tool's capture is taken before the next tool runs, but runs
// TaskStart, TaskComplete and the others detached, without waiting or
// reading their output: a turn's start may be taken as its first tool
// already runs, and no note reaches the model. UserPromptSubmit did not
// fire for a headless prompt; TaskStart does, for every prompt. A
// subagent's events come with parent_agent_id set: its tools count in
// the turn, its start and end do not. `cline --id` continues a session
// in place rather than forking it, so no resume is offered.
var cline = Agent{
	Name:    Cline,
	Events:  clineEvents,
	Scopes:  []string{ScopeLocal, ScopeProject, ScopeUser},
	reshape: clinePayload,
	configs: clineConfigs(clineEvents),
	installNotes: func(scope string) []string {
		return []string{"Cline runs TaskStart and TaskComplete without waiting for them: a turn's start may be taken as its first tool already runs"}
	},
}

// clineEvents are Cline's events, by the names of their executables.
var clineEvents = []HookEvent{
	{Name: "TaskStart", Reason: store.ReasonTurnStart, Hooked: true},
	{Name: "TaskResume", Reason: store.ReasonTurnStart, Hooked: true},
	{Name: "PostToolUse", Reason: store.ReasonTool, Hooked: true},
	{Name: "TaskComplete", Reason: store.ReasonTurnEnd, Hooked: true},
	{Name: "TaskCancel", Reason: store.ReasonTurnEnd, Hooked: true},
	{Name: "TaskError", Reason: store.ReasonTurnEnd, Hooked: true},
	{Name: "PreToolUse"}, {Name: "UserPromptSubmit"}, {Name: "PreCompact"}, {Name: "SessionShutdown"},
}

// clineConfigs are one executable for each hooked event: built from the
// events, they cannot name one Cline does not know.
func clineConfigs(events []HookEvent) []config {
	var out []config
	for _, e := range events {
		if !e.Hooked {
			continue
		}
		out = append(out, pluginFile{
			name:  e.Name,
			where: ".clinerules/hooks/" + e.Name + " or ~/Documents/Cline/Hooks/" + e.Name,
			path:  clineHookPath(e.Name),
			text:  func() string { return clineScript(e.Name) },
			mode:  0o755,
		})
	}
	return out
}

// clineHookPath is where the executable for event goes: the workspace's
// hooks (local and project are the same: Cline has one), or the user's.
func clineHookPath(event string) func(scope string, env Env) string {
	return func(scope string, env Env) string {
		if scope == ScopeUser {
			return filepath.Join(env.Home, "Documents", "Cline", "Hooks", event)
		}
		return filepath.Join(env.Top, ".clinerules", "hooks", event)
	}
}

// clineScript is the executable for event. Its second line, after #!, is
// the marker by which install and uninstall know it is git-checkpoint's.
func clineScript(event string) string {
	return "#!/bin/sh\n" +
		"# git-checkpoint v1: runs 'git-checkpoint hook cline' on Cline's " + event + ".\n" +
		"# Written by 'git checkpoint install cline'; 'git checkpoint uninstall cline' removes it.\n" +
		HookCommand(Cline) + "\n"
}

// clineNames are the file names of Cline's events by the names its CLI
// sends in hookName.
var clineNames = map[string]string{
	"agent_start": "TaskStart", "agent_resume": "TaskResume", "agent_abort": "TaskCancel",
	"agent_end": "TaskComplete", "agent_error": "TaskError", "tool_call": "PreToolUse",
	"tool_result": "PostToolUse", "prompt_submit": "UserPromptSubmit", "session_shutdown": "SessionShutdown",
}

// clinePayload reads Cline's fields as Claude Code's. hookName is the
// event's runtime name (the CLI's) or its file name (as Cline's
// documentation shows it); the tool call is tool_result's, or
// postToolUse's {toolName, parameters} in the documented shape. A
// payload cut at MaxInput keeps only its top-level strings, so its
// session is taskId, the conversation's.
func clinePayload(p *payload) {
	if p.HookName == "" {
		return
	}
	p.HookEventName = cmp.Or(clineNames[p.HookName], p.HookName)
	p.SessionID = cmp.Or(p.SessionContext.RootSessionID, p.TaskID)
	if p.Cwd == "" && len(p.ClineRoots) > 0 {
		p.Cwd = p.ClineRoots[0]
	}
	// parent_agent_id names an agent, not a session.
	p.sub, p.ParentAgentID = p.ParentAgentID != "", ""
	if p.HookEventName == "PostToolUse" {
		p.ToolName = cmp.Or(p.ToolResult.Name, p.PostToolUse.ToolName)
		p.ToolInput = p.ToolResult.Input
		if p.ToolInput == nil {
			p.ToolInput = p.PostToolUse.Parameters
		}
	}
	p.Prompt = cmp.Or(p.Prompt, promptText(p.UserPromptSubmit.Prompt))
}

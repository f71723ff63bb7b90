// Package agents knows the coding agents git-checkpoint works with: what
// their hook events mean (a turn starts, a tool wrote, a turn ends), the
// configuration that makes them call `git checkpoint hook`, how to resume
// their conversations, and how to give their model a note. Each agent is
// one Agent value in a file of its own (agent.go).
//
// Everything an agent sends is untrusted input: it is size-capped, parsed
// leniently, and a payload that makes no sense is reported, never acted on.
package agents

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// MaxInput caps how much of a hook's standard input is read. Payloads carry
// whole file contents (a Write's content, the file before an Edit), so a
// big write can pass it; such an event is still checkpointed, without the
// paths it names.
const MaxInput = 1 << 20

// Event is one hook invocation, reduced to what a checkpoint records.
type Event struct {
	Agent string
	Name  string // the agent's own event name: UserPromptSubmit, AfterTool, agent-turn-complete, post-commit
	// Reason is the capture to take (store.ReasonTurnStart, ...), or ""
	// when the event takes none.
	Reason string
	// NoteEvent, when set, is the hookEventName under which this event
	// may hand a pending note to the model.
	NoteEvent  string
	Session    string
	Transcript string
	Cwd        string
	Tool       string
	// Names are the files the event says it changed, as the agent wrote
	// them: absolute, or relative to Cwd. See Relative.
	Names []string
	// Exact says Names are every file the tool call changed (an editing
	// tool's file_path, or a Bash change list that is complete), so a
	// capture of only those paths is the tree a full scan would find.
	Exact bool
	// LastLine asks for the uuid of the transcript's last line: the point
	// a resumed conversation continues from.
	LastLine bool
	// Reply is the text of the turn's final reply, when the event names
	// it: the line LastLine must find (see LastLine).
	Reply string
	// Truncated is set when the input was cut at MaxInput: only the
	// fields before the cut were read.
	Truncated bool
	// Prompt is what the person asked for, when the event carries it
	// (a turn's start; Codex's notify at its end).
	Prompt string
}

// ErrUnknown is returned for an event (or agent) this version does not
// know; the hook logs and ignores it.
var ErrUnknown = errors.New("unknown event")

// payload is the union of the JSON fields the agents' hook events carry
// that matter here (samples in the design's agent-hooks directory).
type payload struct {
	HookEventName string `json:"hook_event_name"`
	SessionID     string `json:"session_id"`
	// OpenCode's plugin: for a subagent's session, the session of the
	// person's turn that started it.
	ParentSessionID string          `json:"parent_session_id"`
	TranscriptPath  string          `json:"transcript_path"`
	Cwd             string          `json:"cwd"`
	ToolName        string          `json:"tool_name"`
	ToolInput       json.RawMessage `json:"tool_input"`
	ToolResponse    json.RawMessage `json:"tool_response"`
	// Claude Code's Stop: the text of the turn's final reply.
	LastAssistantMessage string `json:"last_assistant_message"`
	// Claude Code's, Codex's and Copilot CLI's UserPromptSubmit, Gemini
	// CLI's BeforeAgent: the person's prompt (Kimi Code's: a list of
	// parts).
	Prompt promptText `json:"prompt"`
	// Copilot CLI's events of a subagent: the main session's id, while
	// session_id is the subagent's own (but for SubagentStop, which comes
	// in the main session).
	ParentAgentID string `json:"parent_agent_id"`
	// OpenCode's plugin: the arguments its hook got (opencode.go).
	Input  json.RawMessage `json:"input"`
	Output json.RawMessage `json:"output"`

	// Fields of agents whose payloads are not shaped like Claude Code's,
	// which their Agent.reshape moves into the fields above (cursor.go,
	// cline.go).
	ConversationID string   `json:"conversation_id"`
	WorkspaceRoots []string `json:"workspace_roots"`
	FilePath       string   `json:"file_path"`
	Command        string   `json:"command"`
	HookName       string   `json:"hookName"`
	TaskID         string   `json:"taskId"`
	ClineRoots     []string `json:"workspaceRoots"`
	SessionContext struct {
		RootSessionID string `json:"rootSessionId"`
	} `json:"sessionContext"`
	ToolResult struct {
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	} `json:"tool_result"`
	PostToolUse struct {
		ToolName   string          `json:"toolName"`
		Parameters json.RawMessage `json:"parameters"`
	} `json:"postToolUse"`
	UserPromptSubmit struct {
		Prompt string `json:"prompt"`
	} `json:"userPromptSubmit"`
	// sub says the event is a subagent's, inside the session's turn,
	// when the agent does not name a parent session (Cline's
	// parent_agent_id is an agent's).
	sub bool
}

// Parse reads one hook event of agent: data is the standard input (cut at
// MaxInput when truncated is set), args the arguments after the agent's
// name. An agent whose event comes in args (aider's post-commit, Codex's
// notify) is read from them instead.
// With an error, the event may still be returned, holding what was read.
func Parse(agent string, args []string, data []byte, truncated bool) (*Event, error) {
	a, ok := Lookup(agent)
	if !ok {
		return nil, fmt.Errorf("%w: no agent %q (want one of %v)", ErrUnknown, agent, Names())
	}
	if !a.ReadsStdin(args) {
		return a.argsEvent(args)
	}
	p, err := decode(data, truncated, a.reshape)
	if err != nil {
		return nil, err
	}
	ev := &Event{Agent: agent, Name: p.HookEventName, Session: p.SessionID,
		Transcript: p.TranscriptPath, Cwd: p.Cwd, Tool: p.ToolName, Truncated: truncated}
	e, ok := a.event(ev.Name)
	if !ok {
		return ev, fmt.Errorf("%w %q", ErrUnknown, ev.Name) // what was read, for the log
	}
	if parent := cmp.Or(p.ParentAgentID, p.ParentSessionID); p.sub || (parent != "" && parent != p.SessionID) {
		// A subagent reported as a session of its own (Copilot CLI's
		// parent_agent_id, OpenCode's plugin's parent_session_id), or
		// marked as one (p.sub): its writes belong to the main session's
		// turn, and its own prompt and stop are steps inside that turn,
		// which goes on.
		if !p.sub {
			ev.Session = parent
		}
		if e.Reason != store.ReasonTool {
			e = HookEvent{Name: e.Name}
		}
	}
	if e.Continued && p.Prompt == "" && !truncated {
		// A turn going on, not a person's prompt (Qwen Code's
		// UserPromptSubmit before each model request).
		e = HookEvent{Name: e.Name}
	}
	if e.Reason == store.ReasonTool {
		toolEvent(ev, p)
	} else {
		ev.Reason = e.Reason
	}
	if e.Note {
		ev.NoteEvent = e.Name
	}
	ev.LastLine = e.LastLine
	if e.Reply {
		ev.Reply = p.LastAssistantMessage
	}
	if ev.Reason == store.ReasonTurnStart {
		ev.Prompt = string(p.Prompt)
		if ev.Prompt == "" {
			ev.Prompt = openCodePrompt(p.Output)
		}
	}
	if ev.Reason == "" {
		ev.Names = nil
	}
	return ev, nil
}

// promptText is a prompt: a string, or Kimi Code's list of parts, whose
// text parts it joins (an image part has none).
type promptText string

func (p *promptText) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*p = promptText(s)
		return nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(b, &parts); err != nil {
		return err
	}
	var texts []string
	for _, part := range parts {
		if part.Type == "text" {
			texts = append(texts, part.Text)
		}
	}
	*p = promptText(strings.Join(texts, "\n"))
	return nil
}

// decode parses a payload, reshaped into Claude Code's fields when the
// agent has its own (reshape, or nil); a truncated one is read field by
// field up to the cut.
func decode(data []byte, truncated bool, reshape func(*payload)) (*payload, error) {
	p := &payload{}
	if truncated {
		ok := prefixFields(data, p)
		if reshape != nil {
			reshape(p)
		}
		if !ok && p.HookEventName == "" {
			return nil, fmt.Errorf("the input is over %d bytes and does not start like an event", MaxInput)
		}
		return p, nil
	}
	if err := json.Unmarshal(bytes.TrimSpace(data), p); err != nil {
		return nil, fmt.Errorf("the input is not an event: %v", err)
	}
	if reshape != nil {
		reshape(p)
	}
	if p.HookEventName == "" {
		return nil, errors.New("the input has no hook_event_name")
	}
	return p, nil
}

// prefixFields reads the top-level string fields of a JSON object that was
// cut short, skipping nested values, until the cut. The agents put the
// event's name, session and tool before the bulky tool input.
func prefixFields(data []byte, p *payload) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	fields := map[string]*string{"hook_event_name": &p.HookEventName, "session_id": &p.SessionID,
		"parent_session_id": &p.ParentSessionID, "parent_agent_id": &p.ParentAgentID,
		"transcript_path": &p.TranscriptPath, "cwd": &p.Cwd, "tool_name": &p.ToolName, "prompt": (*string)(&p.Prompt),
		"conversation_id": &p.ConversationID, "file_path": &p.FilePath, "hookName": &p.HookName, "taskId": &p.TaskID}
	for {
		t, err := dec.Token()
		if err != nil {
			break
		}
		key, ok := t.(string)
		if !ok {
			break
		}
		v, err := dec.Token()
		if err != nil {
			break
		}
		if d, ok := v.(json.Delim); ok && (d == '{' || d == '[') {
			if !skip(dec) {
				break
			}
			continue
		}
		if s, ok := v.(string); ok && fields[key] != nil {
			*fields[key] = s
		}
	}
	return p.HookEventName != ""
}

// skip consumes the rest of an object or array whose opening token was
// just read.
func skip(dec *json.Decoder) bool {
	for depth := 1; depth > 0; {
		t, err := dec.Token()
		if err != nil {
			return false
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
	return true
}

// readOnlyTools are tools that never change files, across the agents: a
// call to one takes no checkpoint. Any other tool (an MCP server's, one a
// newer agent adds) is assumed to write.
func readOnlyTool(name string) bool {
	return slices.Contains([]string{
		// Claude Code
		"Read", "Glob", "Grep", "LS", "WebFetch", "WebSearch", "TodoWrite", "TodoRead",
		"Task", "Agent", "TaskOutput", "BashOutput", "KillShell", "KillBash", "ExitPlanMode",
		"EnterPlanMode", "AskUserQuestion", "ListMcpResourcesTool", "ReadMcpResourceTool",
		"Skill", "SlashCommand", "ToolSearch",
		// Codex CLI
		"read_file", "list_dir", "grep_files", "view_image", "update_plan", "web_search",
		// Gemini CLI
		"read_many_files", "list_directory", "glob", "search_file_content", "grep_search",
		"google_web_search", "web_fetch", "save_memory", "write_todos",
		// Copilot CLI, whose view, grep, glob and task come as Read,
		// Grep, Glob and Agent. Its sql tools query the session's own
		// database. read_bash and stop_bash are not here: a background
		// command's writes show up by then.
		"list_bash", "sql", "session_store_sql", "fetch_copilot_cli_documentation", "list_agents",
		"read_agent", "skill",
		// OpenCode (glob too); task starts a subagent, whose tools come
		// as calls of their own
		"read", "grep", "list", "todowrite", "todoread", "webfetch", "websearch", "codesearch",
		"question", "task",
		// Qwen Code (its others are Gemini CLI's and OpenCode's names);
		// agent starts a subagent, whose tools come as calls of their own
		"agent", "todo_write", "ask_user_question", "enter_plan_mode", "exit_plan_mode",
		"zoom_image", "tool_search", "list_agents", "read_mcp_resource",
		// Pi (read and grep too)
		"find", "ls",
		// Cline; spawn_agent starts a subagent, whose tools come as
		// calls of their own
		"read_files", "search_codebase", "fetch_web_content", "ask_question", "skills",
		"spawn_agent", "submit_and_exit", "team_status", "team_read_mailbox", "team_list_runs",
		"team_list_outcomes", "team_mission_log",
	}, name)
}

// toolInput holds the fields of a tool call's input that name files.
type toolInput struct {
	FilePath     string `json:"file_path"`
	NotebookPath string `json:"notebook_path"`
	// Path is the file of Copilot CLI's Write and Edit (its create and
	// edit tools), of Pi's write and edit and of Cline's editor; other
	// tools' path, a directory searched, names no change.
	Path    string `json:"path"`
	Command string `json:"command"`
	// OpenCode's write and edit.
	FilePathCamel string `json:"filePath"`
}

// toolEvent fills a tool call's reason and the files it names.
func toolEvent(ev *Event, p *payload) {
	if ev.Tool == "" || readOnlyTool(ev.Tool) {
		return
	}
	ev.Reason = store.ReasonTool
	raw := p.ToolInput
	if raw == nil {
		raw = openCodeArgs(p.Input)
	}
	var in toolInput
	if json.Unmarshal(raw, &in) == nil {
		ev.Names = appendNonEmpty(ev.Names, in.FilePath, in.NotebookPath, in.FilePathCamel)
		if editTool(ev.Tool) {
			ev.Names = appendNonEmpty(ev.Names, in.Path)
		}
		ev.Exact = len(ev.Names) > 0 && editTool(ev.Tool)
		if ev.Tool == "apply_patch" {
			ev.Names = append(ev.Names, patchPaths(in.Command)...)
		}
	}
	// Claude Code's Bash reports the files a command created, deleted or
	// changed.
	var out struct {
		BashEditDiff *struct {
			ChangedFiles []string `json:"changedFiles"`
			// MoreFiles counts the changed files the list leaves out.
			MoreFiles int `json:"moreFiles"`
		} `json:"bashEditDiff"`
	}
	if json.Unmarshal(p.ToolResponse, &out) == nil && out.BashEditDiff != nil {
		ev.Names = appendNonEmpty(ev.Names, out.BashEditDiff.ChangedFiles...)
		if ev.Tool == "Bash" {
			ev.Exact = len(ev.Names) > 0 && out.BashEditDiff.MoreFiles == 0
		}
	}
}

// editTool reports whether a tool changes exactly the one file its input
// names and nothing else. Other tools that name a file (a patch, which can
// move files; an unknown tool) are captured by a full scan.
func editTool(name string) bool {
	return slices.Contains([]string{
		"Write", "Edit", "MultiEdit", "NotebookEdit", // Claude Code, Copilot CLI (Write, Edit)
		"write_file", "replace", // Gemini CLI
		"write", "edit", // OpenCode, Pi; Qwen Code's edit names file_path
		"editor", "write_to_file", "replace_in_file", // Cline's CLI, its editor extension
	}, name)
}

func appendNonEmpty(to []string, names ...string) []string {
	for _, n := range names {
		if n != "" {
			to = append(to, n)
		}
	}
	return to
}

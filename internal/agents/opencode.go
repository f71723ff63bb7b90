package agents

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// OpenCode is OpenCode (npm opencode-ai).
const OpenCode = "opencode"

// opencode has no hook commands: its hooks are JavaScript plugins it
// loads from a directory. install writes one (openCodePlugin) that sends
// three of them to `git-checkpoint hook opencode` as JSON on stdin:
// chat.message, the person's prompt, before it reaches the model;
// tool.execute.after, each tool call that ran; and session.idle, the
// end of a turn. OpenCode awaits the first two but not session.idle, a
// bus event; the plugin waits for it when OpenCode disposes of it,
// which `opencode run` does before it exits. Its edit and write tools
// name their file (filePath); bash names none. It forks only whole
// sessions (--session S --fork), so it resumes only at a session's last
// turn, as Codex does.
var opencode = Agent{
	Name: OpenCode,
	Events: []HookEvent{
		{Name: "chat.message", Reason: store.ReasonTurnStart, Hooked: true},
		{Name: "tool.execute.after", Reason: store.ReasonTool, Hooked: true},
		{Name: "session.idle", Reason: store.ReasonTurnEnd, Hooked: true},
	},
	Scopes: []string{ScopeLocal, ScopeProject, ScopeUser},
	configs: []config{pluginFile{
		name:  pluginName,
		where: ".opencode/plugins/" + pluginName + " or ~/.config/opencode/plugins/" + pluginName,
		path:  openCodePluginPath,
		text:  openCodePlugin,
	}},
	resume: openCodeResume,
}

// pluginName is the file install writes in OpenCode's plugin directory.
const pluginName = "git-checkpoint.js"

// openCodePluginPath is the plugin's place: the project's plugin
// directory (local and project are the same: OpenCode has one), or the
// user's, under $OPENCODE_CONFIG_DIR or the XDG configuration directory.
func openCodePluginPath(scope string, env Env) string {
	if scope != ScopeUser {
		return filepath.Join(env.Top, ".opencode", "plugins", pluginName)
	}
	if d := env.Getenv("OPENCODE_CONFIG_DIR"); d != "" {
		return filepath.Join(d, "plugins", pluginName)
	}
	config := env.Getenv("XDG_CONFIG_HOME")
	if config == "" {
		config = filepath.Join(env.Home, ".config")
	}
	return filepath.Join(config, "opencode", "plugins", pluginName)
}

// openCodeResume forks the whole session, which is faithful only when
// no later turn of that session started.
func openCodeResume(recs store.Records, end int) *Resume {
	if startedAfter(recs, end) {
		return nil
	}
	return &Resume{Agent: OpenCode, Command: "opencode --session " + shellWord(recs.Session(end)) + " --fork"}
}

// openCodeArgs is the tool call's arguments in the input of OpenCode's
// tool.execute.after ({tool, sessionID, callID, args}), or nil.
func openCodeArgs(input json.RawMessage) json.RawMessage {
	var in struct {
		Args json.RawMessage `json:"args"`
	}
	if json.Unmarshal(input, &in) != nil {
		return nil
	}
	return in.Args
}

// openCodePrompt is the person's prompt in the output of OpenCode's
// chat.message ({message, parts}): the text of its parts, without the
// synthetic ones OpenCode adds (a file's content, an instruction), or "".
func openCodePrompt(output json.RawMessage) string {
	var out struct {
		Parts []struct {
			Type      string `json:"type"`
			Text      string `json:"text"`
			Synthetic bool   `json:"synthetic"`
		} `json:"parts"`
	}
	if json.Unmarshal(output, &out) != nil {
		return ""
	}
	var texts []string
	for _, part := range out.Parts {
		if part.Type == "text" && !part.Synthetic && part.Text != "" {
			texts = append(texts, part.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// openCodePlugin is the plugin's source. Its first line is the marker by
// which install and uninstall know the file is git-checkpoint's (it
// names the hook command, as the other agents' entries do). It calls the
// hook one event at a time, in order, so a turn's end is recorded before
// the next prompt's start; it never throws, gives up on a call after
// HookTimeout, and does nothing when git-checkpoint is not on PATH.
// Each event is sent as {hook_event_name, session_id, parent_session_id,
// cwd, tool_name, input, output}: OpenCode's own objects under input and
// output (a tool call's input only, never its output, which can be
// megabytes; for session.idle, the event's properties under input), and for
// a subagent's session the session of the person's turn that started it,
// which the plugin learns from OpenCode's session.created event.
func openCodePlugin() string {
	return strings.ReplaceAll(openCodePluginText, "TIMEOUT_MS", strconv.Itoa(HookTimeout*1000))
}

const openCodePluginText = `// git-checkpoint v1: runs 'git-checkpoint hook opencode' on OpenCode's events.
// Written by 'git checkpoint install opencode'; 'git checkpoint uninstall
// opencode' removes it, and an install rewrites it.
import { spawn } from "node:child_process"

export const GitCheckpoint = async ({ directory }) => {
  let queue = Promise.resolve()
  // A subagent runs in a session of its own, created with its parent's id.
  const parents = new Map()
  const root = (id) => {
    for (let n = 0; parents.has(id) && n < 100; n++) id = parents.get(id)
    return id
  }
  const hook = (name, sessionID, input, output) => {
    let json
    try {
      const top = root(sessionID)
      json = JSON.stringify({
        hook_event_name: name, session_id: sessionID ?? "",
        parent_session_id: top !== sessionID ? top : "", cwd: directory,
        tool_name: input?.tool ?? "", input, output,
      })
    } catch {
      return queue
    }
    const run = () => new Promise((resolve) => {
      try {
        const child = spawn("git-checkpoint", ["hook", "opencode"],
          { cwd: directory, stdio: ["pipe", "ignore", "ignore"] })
        const timer = setTimeout(() => child.kill("SIGTERM"), TIMEOUT_MS)
        const done = () => { clearTimeout(timer); resolve() }
        child.on("error", done) // not on PATH: nothing to do
        child.on("close", done)
        child.stdin.on("error", () => {})
        child.stdin.end(json)
      } catch {
        resolve()
      }
    })
    queue = queue.then(run, run)
    return queue
  }
  return {
    "chat.message": async (input, output) => hook("chat.message", input?.sessionID, input, output),
    // The tool's output (a file read, a command's log) can be megabytes,
    // and names nothing the checkpoint needs: only its input goes.
    "tool.execute.after": async (input) => hook("tool.execute.after", input?.sessionID, input),
    event: async ({ event }) => {
      const info = event?.properties?.info
      if (event?.type === "session.created" && info?.parentID) parents.set(info.id, info.parentID)
      if (event?.type === "session.idle") hook("session.idle", event.properties?.sessionID, event.properties)
    },
    // OpenCode does not wait for its event handlers, but it waits for
    // this before it exits: the turn's end is recorded by then.
    dispose: async () => { await queue },
  }
}
`

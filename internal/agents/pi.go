package agents

import (
	"path/filepath"
	"strconv"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// Pi is Pi (npm @mariozechner/pi-coding-agent).
const Pi = "pi"

// pi has no hook commands: its hooks are extensions, TypeScript modules
// it loads from a directory, as OpenCode's are plugins. install writes
// one (piExtension) that sends three of its events to `git-checkpoint
// hook pi` as JSON on stdin, in the shape Claude Code's hooks get:
// before_agent_start, the person's prompt, before the model sees it,
// whose answer may hand the model a note; tool_result, each tool call
// that ran (write and edit name their file in path, bash names none);
// and agent_end, the end of the prompt's work. Pi forks only whole
// sessions (--fork S), so it resumes only at a session's last turn, as
// OpenCode does.
var pi = Agent{
	Name: Pi,
	Events: []HookEvent{
		{Name: "before_agent_start", Reason: store.ReasonTurnStart, Hooked: true, Note: true},
		{Name: "tool_result", Reason: store.ReasonTool, Hooked: true},
		{Name: "agent_end", Reason: store.ReasonTurnEnd, Hooked: true},
	},
	Scopes: []string{ScopeLocal, ScopeProject, ScopeUser},
	// The extension shows a systemMessage in Pi's terminal interface.
	Messages: true,
	configs: []config{pluginFile{
		name:  piExtensionName,
		where: ".pi/extensions/" + piExtensionName + " or ~/.pi/agent/extensions/" + piExtensionName,
		path:  piExtensionPath,
		text:  piExtension,
	}},
	installNotes: func(scope string) []string {
		if scope == ScopeUser {
			return nil
		}
		return []string{"Pi loads .pi/extensions in the directory it starts in: start it at the top of the working tree"}
	},
	resume: piResume,
}

// piExtensionName is the file install writes in Pi's extension directory.
const piExtensionName = "git-checkpoint.ts"

// piExtensionPath is the extension's place: the project's extension
// directory (local and project are the same: Pi has one), or the
// user's, under $PI_CODING_AGENT_DIR or ~/.pi/agent. Pi reads the
// project's in the directory it starts in, which install's note says.
func piExtensionPath(scope string, env Env) string {
	if scope != ScopeUser {
		return filepath.Join(env.Top, ".pi", "extensions", piExtensionName)
	}
	dir := env.Getenv("PI_CODING_AGENT_DIR")
	if dir == "" {
		dir = filepath.Join(env.Home, ".pi", "agent")
	}
	return filepath.Join(dir, "extensions", piExtensionName)
}

// piResume forks the whole session, which is faithful only when no
// later turn of that session started.
func piResume(recs store.Records, end int) *Resume {
	if startedAfter(recs, end) {
		return nil
	}
	return &Resume{Agent: Pi, Command: "pi --fork " + shellWord(recs.Session(end))}
}

// piExtension is the extension's source. Its first line is the marker by
// which install and uninstall know the file is git-checkpoint's. It sends
// {hook_event_name, session_id, transcript_path, cwd, prompt} for
// before_agent_start, {..., tool_name, tool_input} for tool_result and
// {...} for agent_end, one call at a time, in order; it never throws,
// gives up on a call after HookTimeout, and does nothing when
// git-checkpoint is not on PATH.
//
// Pi awaits before_agent_start and tool_result, so a tool's checkpoint
// is taken before the next tool runs. It runs agent_end in a queue of
// its own events that it does not drain before the next prompt, or
// before it exits: a slow agent_end handler delayed the next prompt's
// events until after its before_agent_start, and those of the last
// prompt were never delivered. So agent_end is not awaited, a prompt
// that starts while a turn is open ends that turn first (and the late
// agent_end of it is dropped), and session_shutdown, which Pi awaits,
// ends an open turn and waits for the last call.
func piExtension() string {
	return strings.ReplaceAll(piExtensionText, "TIMEOUT_MS", strconv.Itoa(HookTimeout*1000))
}

const piExtensionText = `// git-checkpoint v1: runs 'git-checkpoint hook pi' on Pi's events.
// Written by 'git checkpoint install pi'; 'git checkpoint uninstall pi'
// removes it, and an install rewrites it.
import { spawn } from "node:child_process"

export default function (pi) {
  let queue = Promise.resolve("")
  let open = false // a turn started and its end is not sent yet
  let owed = 0 // agent_end events still to come of turns already ended
  const hook = (name, ctx, fields) => {
    let json, cwd
    try {
      cwd = ctx?.cwd || process.cwd()
      json = JSON.stringify({
        hook_event_name: name,
        session_id: ctx?.sessionManager?.getSessionId?.() ?? "",
        transcript_path: ctx?.sessionManager?.getSessionFile?.() ?? "",
        cwd, ...fields,
      })
    } catch {
      return Promise.resolve("")
    }
    const run = () => new Promise((resolve) => {
      let out = ""
      try {
        const child = spawn("git-checkpoint", ["hook", "pi"],
          { cwd, stdio: ["pipe", "pipe", "ignore"] })
        const timer = setTimeout(() => child.kill("SIGTERM"), TIMEOUT_MS)
        const done = () => { clearTimeout(timer); resolve(out) }
        child.on("error", done) // not on PATH: nothing to do
        child.on("close", done)
        child.stdout.on("data", (d) => { if (out.length < 1048576) out += d })
        child.stdin.on("error", () => {})
        child.stdin.end(json)
      } catch {
        resolve(out)
      }
    })
    queue = queue.then(run, run)
    return queue
  }
  const end = (ctx) => {
    if (!open) return queue
    open = false
    return hook("agent_end", ctx, {})
  }
  pi.on("before_agent_start", async (event, ctx) => {
    try {
      if (open) { owed++; end(ctx) }
      open = true
      const out = await hook("before_agent_start", ctx, { prompt: event?.prompt ?? "" })
      if (!out.trim()) return
      const doc = JSON.parse(out)
      if (doc.systemMessage && ctx?.hasUI) ctx.ui.notify(doc.systemMessage, "warning")
      const note = doc.hookSpecificOutput?.additionalContext ?? doc.additionalContext
      if (note) return { message: { customType: "git-checkpoint", content: note, display: true } }
    } catch {}
  })
  pi.on("tool_result", async (event, ctx) => {
    try {
      await hook("tool_result", ctx, { tool_name: event?.toolName ?? "", tool_input: event?.input ?? {} })
    } catch {}
  })
  // Not awaited: Pi holds its next events until this returns.
  pi.on("agent_end", async (event, ctx) => {
    if (owed > 0) owed--
    else end(ctx)
  })
  pi.on("session_shutdown", async (event, ctx) => {
    try {
      end(ctx)
      await queue
    } catch {}
  })
}
`

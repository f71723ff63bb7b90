// git-checkpoint v1: runs 'git-checkpoint hook opencode' on OpenCode's events.
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
        const timer = setTimeout(() => child.kill("SIGTERM"), 30000)
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

// git-checkpoint v1: runs 'git-checkpoint hook pi' on Pi's events.
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
        const timer = setTimeout(() => child.kill("SIGTERM"), 30000)
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

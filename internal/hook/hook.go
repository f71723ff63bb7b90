// Package hook is what an agent's hook call does: it reads the event the
// agent passes, chooses the working tree the event is about, takes the
// checkpoint the event calls for (taking the store lock, or handing the
// checkpoint to the process that holds it), numbers turns, runs retention
// at a turn's end, and writes what went wrong to hook.log. It returns
// what the agent reads on stdout, for the command line to print; it
// prints nothing itself and never fails: a hook must not disturb the
// agent that runs it (DESIGN invariant 6).
package hook

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/agents"
	"github.com/git-checkpoint/git-checkpoint/internal/config"
	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/workspace"
)

// Call is one run of an agent's hook.
type Call struct {
	Agent string   // the agent's name (agents.Lookup)
	Args  []string // what follows it: Codex's notify and its JSON, aider's post-commit
	Stdin io.Reader
	// Getenv reads the environment, for the project directory an agent
	// names there.
	Getenv func(string) string
	// Open opens the working tree; its Dir is the directory the hook runs
	// in, which the event's own directory overrides (Tree), and the hook
	// sets Scan.
	Open workspace.Options
}

// Run does what the call's event asks and returns what the agent reads on
// stdout: nothing, except the note a rewind left for the model.
func Run(ctx context.Context, c Call) []byte {
	started, base := time.Now(), ctx
	// Until the configuration is read, the default limit applies.
	ctx, cancel := context.WithTimeout(base, config.Default().HookTimeout)
	defer cancel()
	ev, evErr := Read(ctx, c.Agent, c.Args, c.Stdin)
	if evErr == nil && ev.Reason == "" && ev.NoteEvent == "" {
		// A known event with nothing to do (a read-only tool, PreToolUse):
		// no git process at all.
		return nil
	}
	o := c.Open
	o.Dir = Tree(c.Getenv, c.Agent, ev, o.Dir)
	// A turn boundary's capture scans the tree: the scan begins beside
	// discovery.
	o.Scan = evErr == nil && ev.Reason != "" && !perTool(ev)
	w, err := workspace.Open(ctx, o)
	if err != nil {
		// Outside a repository there is nothing to do and nowhere to log.
		return nil
	}
	defer w.Release()
	if !w.Config.Enabled {
		w.Release() // no checkpoint to take: the scan stops at once
	}
	ctx, cancelAll := context.WithDeadline(base, started.Add(w.Config.HookTimeout))
	defer cancelAll()
	return Handle(ctx, w, c.Agent, o.Now, ev, evErr)
}

// Handle is Run on an open working tree, with the event read: ev, or
// evErr, why it could not be (then ev may still name the event). ctx
// bears the hook's deadline; now is the clock of hook.log.
func Handle(ctx context.Context, w *workspace.Workspace, agent string, now func() time.Time, ev *agents.Event, evErr error) []byte {
	h := &call{w: w, agent: agent, now: now}
	if ev != nil {
		h.event = ev.Name
	}
	if evErr != nil {
		h.failed("ignored: %v", evErr)
		return nil
	}
	if ev.Reason != "" && w.Config.Enabled {
		if err := h.captureLogged(ctx, ev); err != nil {
			h.failed("no checkpoint: %v", fault.Explain(err))
		} else {
			agents.Worked(w.Store.Dir)
		}
	}
	if ev.NoteEvent == "" {
		return nil
	}
	// After the capture, so that a failure of this one is told too.
	text, _ := agents.TakeNote(w.Store.Dir)
	message := ""
	if agents.ShowsMessages(agent) {
		message = agents.Untold(w.Store.Dir)
	}
	return agents.Context(agent, ev.NoteEvent, text, message)
}

// call is one hook call on its working tree, and its log.
type call struct {
	w     *workspace.Workspace
	agent string
	event string // the event's name, for hook.log
	now   func() time.Time
}

// logf writes a line to hook.log, when the store can be made.
func (h *call) logf(format string, args ...any) {
	if h.w.Store.Init() == nil {
		agents.Log(h.w.Store.Dir, h.now(), h.agent, h.event, fmt.Sprintf(format, args...))
	}
}

// failed logs a failure and keeps it for git checkpoint status, which
// tells the person that hooks fail.
func (h *call) failed(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	h.logf("%s", msg)
	if h.w.Store.Init() == nil {
		agents.Failed(h.w.Store.Dir, agents.Failure{At: h.now(), Agent: h.agent, Event: h.event, Message: msg})
	}
}

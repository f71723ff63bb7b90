package hook

import (
	"context"
	"fmt"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/agents"
	"github.com/git-checkpoint/git-checkpoint/internal/capture"
	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
	"github.com/git-checkpoint/git-checkpoint/internal/turns"
)

// captureLogged is capture, with a bug of ours that panics turned into an
// error for hook.log: a hook exits 0 and prints nothing, whatever happens.
func (h *call) captureLogged(ctx context.Context, ev *agents.Event) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error: %v", r)
		}
	}()
	return h.capture(ctx, ev)
}

// capture takes the event's checkpoint, numbering a new turn at its start
// and giving later events of the session the turn they belong to.
func (h *call) capture(ctx context.Context, ev *agents.Event) error {
	w := h.w
	if ev.Truncated {
		h.logf("the event is over %d bytes: checkpointed without the paths it names", agents.MaxInput)
	}
	paths, rejected := agents.Relative(w.Repo.Top, ev.Cwd, ev.Names)
	if len(rejected) > 0 {
		h.logf("ignored %d %s outside the working tree: %s", len(rejected), fault.Plural(len(rejected), "path", "paths"),
			strings.Join(rejected[:min(len(rejected), 5)], ", "))
	}
	opts := capture.Options{Reason: ev.Reason, Session: ev.Session, Agent: ev.Agent, Tool: ev.Tool,
		Paths: paths, Transcript: ev.Transcript}
	if ev.Reason == store.ReasonTurnStart || ev.Reason == store.ReasonTurnEnd {
		on := w.Config.MCPRewind
		opts.MCPRewind = &on
	}
	if w.Config.RecordPrompts {
		// Cut here already: a queued hook's options are written to a file.
		opts.Prompt = store.CutPrompt(ev.Prompt)
	}
	if ev.LastLine {
		var err error
		if opts.TranscriptAt, err = agents.LastLine(ctx, ev.Transcript, ev.Reply); err != nil {
			h.logf("%v", err)
		}
	}
	if perTool(ev) {
		// A per-tool capture brings only the files the tool changed up
		// to date (capture.Options.Only); a turn boundary always scans.
		// Their hashing needs no lock: it is done before waiting for it.
		opts.Only = absolute(ev.Cwd, ev.Names)
		opts.Prehash = w.Capture.Prehash(ctx, opts.Only)
	}
	unlock, answered, err := h.lock(ctx, opts)
	if err != nil || unlock == nil {
		return err
	}
	defer unlock()
	// Before the lock goes, the captures the hooks waiting for it asked
	// for: its holder is the one process that may take them.
	if answered {
		h.takeWaiting(ctx, nil, nil)
		return nil
	}
	j, err := w.Store.Journal()
	if err != nil {
		return err
	}
	if ev.Reason == store.ReasonTurnStart {
		opts.Turn = turns.Next(j)
	} else {
		opts.Turn = turns.Current(j, ev.Session)
	}
	if opts.Groupable() {
		// The hook's own per-tool capture is the first of a group, with
		// whatever hooks wait already: its commit goes into the group's
		// pack, where a capture of its own runs commit-tree after it.
		// One the group leaves (it needs a scan, or the group failed) is
		// taken as before. The hooks that came while the group ran are
		// taken after it, as after a capture of its own.
		if h.takeWaiting(ctx, j, &opts) {
			h.takeWaiting(ctx, j, nil)
			return nil
		}
		if j, err = w.Store.Journal(); err != nil {
			return err
		}
	}
	rec, err := w.Capture.Capture(ctx, j, opts)
	if err != nil {
		return err
	}
	if ev.Reason == store.ReasonTurnEnd {
		h.tellSwitch(j.TurnStart(opts.Turn), rec)
		// Retention runs at turn ends, at most hourly (DESIGN 5.4): never
		// in the middle of a turn, when a rewind target may be wanted.
		if _, err := w.Store.PruneIfDue(ctx, j, w.Retention()); err != nil {
			h.logf("retention: %v", err)
			j = nil // the journal on disk may no longer be the one in memory
		}
	}
	h.takeWaiting(ctx, j, nil)
	return nil
}

// tellSwitch tells the next prompt, the model and the person, that
// checkpoint.mcpRewind changed during the turn that end ends: a model
// with a shell could have changed it (store.Record.MCPRewind).
func (h *call) tellSwitch(start, end *store.Record) {
	if start == nil || end == nil {
		return
	}
	on, changed := store.SwitchChanged(start.MCPRewind, end.MCPRewind)
	if !changed {
		return
	}
	text := store.SwitchNote(end.Turn, on)
	h.logf("%s", text)
	if err := agents.AddNote(h.w.Store.Dir, text); err != nil {
		h.logf("cannot leave the note for the next prompt: %v", err)
	}
}

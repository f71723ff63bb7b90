package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/agents"
	"github.com/git-checkpoint/git-checkpoint/internal/capture"
	"github.com/git-checkpoint/git-checkpoint/internal/config"
	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
	"github.com/git-checkpoint/git-checkpoint/internal/turns"
)

type hookCmd struct {
	Agent string   `arg:"" help:"The agent whose hook this is: ${agent_names}."`
	Args  []string `arg:"" optional:"" passthrough:"" help:"Codex: 'notify' and the JSON Codex passes; aider: 'post-commit'."`
}

func (h *hookCmd) Help() string {
	return `Called by an agent's hooks (see 'git checkpoint install'), not by people. Reads
the agent's event (JSON on stdin; for Codex's notify, the last argument), takes
the checkpoint the event calls for and records the session, turn, tool and the
files the event names. It always exits 0 and prints nothing, except a pending
note for the model after a rewind; its failures go to hook.log in the state
directory.`
}

// Run never returns an error: a hook must not disturb the agent that runs
// it (DESIGN invariant 6). Whatever goes wrong is written to hook.log.
func (h *hookCmd) Run(ctx context.Context, sys *IO, g *Globals) error {
	started, base := time.Now(), ctx
	// Until the configuration is read, the default limit applies.
	ctx, cancel := context.WithTimeout(base, config.Default().HookTimeout)
	defer cancel()
	var data []byte
	var truncated bool
	var readErr error
	if agent, _ := agents.Lookup(h.Agent); agent.ReadsStdin(h.Args) {
		// An event that comes in the arguments (a git hook has the
		// terminal as stdin) leaves stdin alone.
		data, truncated, readErr = readEvent(ctx, sys.Stdin)
	}
	ev, parseErr := agents.Parse(h.Agent, h.Args, data, truncated)
	if readErr != nil {
		parseErr = readErr
	}
	if parseErr == nil && ev.Reason == "" && ev.NoteEvent == "" {
		// A known event with nothing to do (a read-only tool, PreToolUse):
		// no git process at all.
		return nil
	}
	hg := *g
	hg.Chdir, hg.JSON, hg.Quiet = hookTree(sys, h.Agent, ev, g.Chdir), false, true
	opener := open
	if parseErr == nil && ev.Reason != "" && !perTool(ev) {
		opener = openScanning // a turn boundary's capture scans the tree
	}
	s, err := opener(ctx, sys, &hg)
	if err != nil {
		// Outside a repository there is nothing to do and nowhere to log.
		return nil
	}
	defer s.Release()
	if !s.Config.Enabled {
		s.Release() // no checkpoint to take: the scan stops at once
	}
	name := ""
	if ev != nil {
		name = ev.Name
	}
	logf := func(format string, args ...any) {
		if s.Store.Init() == nil {
			agents.Log(s.Store.Dir, sys.Now(), h.Agent, name, fmt.Sprintf(format, args...))
		}
	}
	failed := func(format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		logf("%s", msg)
		if s.Store.Init() == nil {
			agents.Failed(s.Store.Dir, agents.Failure{At: sys.Now(), Agent: h.Agent, Event: name, Message: msg})
		}
	}
	if parseErr != nil {
		failed("ignored: %v", parseErr)
		return nil
	}
	ctx, cancelAll := context.WithDeadline(base, started.Add(s.Config.HookTimeout))
	defer cancelAll()
	if ev.Reason != "" && s.Config.Enabled {
		if err := h.captureLogged(ctx, s, ev, logf); err != nil {
			failed("no checkpoint: %v", fault.Explain(err))
		} else {
			agents.Worked(s.Store.Dir)
		}
	}
	if ev.NoteEvent != "" {
		// After the capture, so that a failure of this one is told too.
		text, _ := agents.TakeNote(s.Store.Dir)
		message := ""
		if agents.ShowsMessages(h.Agent) {
			message = agents.Untold(s.Store.Dir)
		}
		sys.Stdout.Write(agents.Context(h.Agent, ev.NoteEvent, text, message))
	}
	return nil
}

// perTool reports whether the event's capture takes only the files a
// tool names, without a scan: a tool call that says exactly what it
// changed, in full.
func perTool(ev *agents.Event) bool {
	return ev.Reason == store.ReasonTool && ev.Exact && !ev.Truncated
}

// captureLogged is capture, with a bug of ours that panics turned into an
// error for hook.log: a hook exits 0 and prints nothing, whatever happens.
func (h *hookCmd) captureLogged(ctx context.Context, s *session, ev *agents.Event, logf func(string, ...any)) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error: %v", r)
		}
	}()
	return h.capture(ctx, s, ev, logf)
}

// capture takes the event's checkpoint, numbering a new turn at its start
// and giving later events of the session the turn they belong to.
func (h *hookCmd) capture(ctx context.Context, s *session, ev *agents.Event, logf func(string, ...any)) error {
	if ev.Truncated {
		logf("the event is over %d bytes: checkpointed without the paths it names", agents.MaxInput)
	}
	paths, rejected := agents.Relative(s.Repo.Top, ev.Cwd, ev.Names)
	if len(rejected) > 0 {
		logf("ignored %d %s outside the working tree: %s", len(rejected), fault.Plural(len(rejected), "path", "paths"),
			strings.Join(rejected[:min(len(rejected), 5)], ", "))
	}
	opts := capture.Options{Reason: ev.Reason, Session: ev.Session, Agent: ev.Agent, Tool: ev.Tool,
		Paths: paths, Transcript: ev.Transcript}
	if ev.Reason == store.ReasonTurnStart || ev.Reason == store.ReasonTurnEnd {
		on := s.Config.MCPRewind
		opts.MCPRewind = &on
	}
	if s.Config.RecordPrompts {
		// Cut here already: a queued hook's options are written to a file.
		opts.Prompt = store.CutPrompt(ev.Prompt)
	}
	if ev.LastLine {
		var err error
		if opts.TranscriptAt, err = agents.LastLine(ctx, ev.Transcript, ev.Reply); err != nil {
			logf("%v", err)
		}
	}
	if perTool(ev) {
		// A per-tool capture brings only the files the tool changed up
		// to date (capture.Options.Only); a turn boundary always scans.
		// Their hashing needs no lock: it is done before waiting for it.
		opts.Only = absolute(ev.Cwd, ev.Names)
		opts.Prehash = s.Capture.Prehash(ctx, opts.Only)
	}
	unlock, answered, err := h.lock(ctx, s, opts)
	if err != nil || unlock == nil {
		return err
	}
	defer unlock()
	// Before the lock goes, the captures the hooks waiting for it asked
	// for: its holder is the one process that may take them.
	if answered {
		takeWaiting(ctx, s, nil, nil, logf)
		return nil
	}
	j, err := s.Store.Journal()
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
		if takeWaiting(ctx, s, j, &opts, logf) {
			takeWaiting(ctx, s, j, nil, logf)
			return nil
		}
		if j, err = s.Store.Journal(); err != nil {
			return err
		}
	}
	rec, err := s.Capture.Capture(ctx, j, opts)
	if err != nil {
		return err
	}
	if ev.Reason == store.ReasonTurnEnd {
		tellSwitch(s, j.TurnStart(opts.Turn), rec, logf)
	}
	if ev.Reason == store.ReasonTurnEnd {
		// Retention runs at turn ends, at most hourly (DESIGN 5.4): never
		// in the middle of a turn, when a rewind target may be wanted.
		if _, err := s.Store.PruneIfDue(ctx, j, s.Retention()); err != nil {
			logf("retention: %v", err)
			j = nil // the journal on disk may no longer be the one in memory
		}
	}
	takeWaiting(ctx, s, j, nil, logf)
	return nil
}

// absolute makes the names an event gave absolute, or returns nil when one
// is relative and the event names no directory to resolve it from: then
// the whole tree is scanned.
func absolute(cwd string, names []string) []string {
	out := make([]string, 0, len(names))
	for _, n := range names {
		if !filepath.IsAbs(n) {
			if !filepath.IsAbs(cwd) {
				return nil
			}
			n = filepath.Join(cwd, n)
		}
		out = append(out, n)
	}
	return out
}

// hookTree is the directory whose working tree the event is about: the
// project directory an agent names in the environment, else the event's
// cwd, which follows the agent's `cd`.
func hookTree(sys *IO, agent string, ev *agents.Event, chdir string) string {
	a, _ := agents.Lookup(agent)
	if d := sys.Getenv(a.ProjectDirEnv); a.ProjectDirEnv != "" && isDirectory(d) {
		return d
	}
	if ev != nil && filepath.IsAbs(ev.Cwd) && isDirectory(ev.Cwd) {
		return ev.Cwd
	}
	return chdir
}

func isDirectory(p string) bool {
	if p == "" {
		return false
	}
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// readEvent reads a hook's standard input up to agents.MaxInput, giving up
// when ctx ends. What lies beyond the cap is read and dropped in the
// background, so the agent never fails writing it.
func readEvent(ctx context.Context, r io.Reader) ([]byte, bool, error) {
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		data, err := io.ReadAll(io.LimitReader(r, agents.MaxInput+1))
		done <- result{data, err}
		if len(data) > agents.MaxInput {
			io.Copy(io.Discard, r)
		}
	}()
	select {
	case res := <-done:
		if res.err != nil {
			return nil, false, fmt.Errorf("cannot read the event: %v", res.err)
		}
		if len(res.data) > agents.MaxInput {
			return res.data[:agents.MaxInput], true, nil
		}
		return res.data, false, nil
	case <-ctx.Done():
		return nil, false, errors.New("no event arrived on stdin in time")
	}
}

// tellSwitch tells the next prompt, the model and the person, that
// checkpoint.mcpRewind changed during the turn that end ends: a model
// with a shell could have changed it (store.Record.MCPRewind).
func tellSwitch(s *session, start, end *store.Record, logf func(string, ...any)) {
	if start == nil || end == nil {
		return
	}
	on, changed := store.SwitchChanged(start.MCPRewind, end.MCPRewind)
	if !changed {
		return
	}
	text := store.SwitchNote(end.Turn, on)
	logf("%s", text)
	if err := agents.AddNote(s.Store.Dir, text); err != nil {
		logf("cannot leave the note for the next prompt: %v", err)
	}
}

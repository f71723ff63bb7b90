package agents

import (
	"slices"

	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// Agent is everything git-checkpoint knows of one agent. Each agent is one
// value, in its own file (claude.go, codex.go, gemini.go, copilot.go,
// opencode.go, qwen.go, pi.go, kimi.go, cursor.go, cline.go, aider.go), and the code that parses events, installs hooks
// and resumes conversations reads these fields instead of switching on names: supporting another
// agent is adding a file and a line to registry.
type Agent struct {
	// Name is how the command line names the agent (install NAME, hook
	// NAME) and how checkpoints record it.
	Name string
	// Events are the agent's hook events that this version knows, hooked
	// ones first in the order its settings file lists them. An event not
	// here is unknown: logged and ignored.
	Events []HookEvent
	// ProjectDirEnv is the environment variable in which the agent names
	// its project's directory to a hook, or "": the event's cwd follows
	// the agent's `cd`, so this comes first.
	ProjectDirEnv string
	// Scopes are the --scope values install and uninstall take.
	Scopes []string
	// Messages says the agent shows a hook's systemMessage to its person,
	// so a hook can tell of failures there (see Untold).
	Messages bool
	// flatContext says the agent reads additionalContext at the top of a
	// hook's output rather than inside hookSpecificOutput (see Context).
	flatContext bool
	// messageContext says the agent adds a hook's "message" to the
	// model's context, and otherwise its whole standard output (Kimi
	// Code): the note goes there, and nothing else may be printed.
	messageContext bool

	// reshape moves the fields of a payload not shaped like Claude
	// Code's into the fields that are (Cursor's, Cline's), before it is
	// read; nil for an agent whose payloads are.
	reshape func(p *payload)
	// onArgs reports whether a hook call gets its event in its
	// arguments rather than as JSON on standard input; argsEvent then
	// reads it. Nil: always on standard input.
	onArgs    func(args []string) bool
	argsEvent func(args []string) (*Event, error)
	// configs are the files install writes, in the order it reports them.
	configs []config
	// installNotes are what install tells about scope, after what the
	// configs said.
	installNotes func(scope string) []string
	// mcp is where the agent reads its MCP servers (install --mcp), or
	// nil when it has no MCP client.
	mcp *mcpPlace
	// resume continues the conversation of recs[end], the last turn end
	// of its session at or before a rewind's target, or returns nil when
	// it cannot do so faithfully. Nil: the agent offers no way.
	resume func(recs store.Records, end int) *Resume
	// carried says its conversation can travel with a store's
	// checkpoints (push --with-conversation; carry.go).
	carried bool
	// hooksOnce says the agent runs an identical hook command once, in
	// whichever of its files it finds it: hooked from its settings and
	// from its package of ours, it still runs each hook once (Twice).
	hooksOnce bool
}

// HookEvent is one of an agent's hook events and what it takes.
type HookEvent struct {
	Name string
	// Reason is the capture the event takes (store.ReasonTurnStart,
	// store.ReasonTurnEnd), or "" for an event known to take none.
	// store.ReasonTool is a tool call: it takes one unless the tool only
	// reads (see toolEvent).
	Reason string
	// Hooked says install adds a hook on the event. An event that is
	// not hooked is still read when the user's own configuration sends it.
	Hooked bool
	// Note says a pending note for the model goes out in the answer to
	// this event (Event.NoteEvent).
	Note bool
	// Continued says the agent sends the event again, with an empty
	// prompt, before each model request of a turn it already started
	// (Qwen Code): only the one carrying a prompt takes the capture and
	// the note.
	Continued bool
	// LastLine asks for the transcript's resume point (Event.LastLine);
	// Reply says the payload names the turn's final reply (Event.Reply).
	LastLine, Reply bool
}

// registry is the agents, in the order help texts show them. It is the
// only package-level state, and it never changes.
var registry = []Agent{claude, codex, gemini, copilot, opencode, qwen, pi, kimi, cursor, cline, aider}

// Lookup returns the agent called name.
func Lookup(name string) (Agent, bool) {
	i := slices.IndexFunc(registry, func(a Agent) bool { return a.Name == name })
	if i < 0 {
		return Agent{}, false
	}
	return registry[i], true
}

// Names lists the agents, in the order help texts show them.
func Names() []string {
	names := make([]string, len(registry))
	for i, a := range registry {
		names[i] = a.Name
	}
	return names
}

// TakesNotes reports whether the hooks of the agent called name deliver a
// note to its model: only then is leaving one after a rewind of use.
func TakesNotes(name string) bool {
	a, _ := Lookup(name)
	return a.TakesNotes()
}

// TakesNotes reports whether one of the agent's events delivers notes.
func (a Agent) TakesNotes() bool {
	return slices.ContainsFunc(a.Events, func(e HookEvent) bool { return e.Note })
}

// ShowsMessages reports whether the agent called name shows a hook's
// systemMessage to its person.
func ShowsMessages(name string) bool {
	a, _ := Lookup(name)
	return a.Messages
}

// ReadsStdin reports whether a hook call with args gets its event on
// standard input. An unknown agent's (the zero Agent) does too: reading
// it drains what the caller writes, so its write never fails.
func (a Agent) ReadsStdin(args []string) bool {
	return a.onArgs == nil || !a.onArgs(args)
}

// hooked are the events install adds hooks on, in order.
func (a Agent) hooked() []string {
	var names []string
	for _, e := range a.Events {
		if e.Hooked {
			names = append(names, e.Name)
		}
	}
	return names
}

// event returns the agent's event called name.
func (a Agent) event(name string) (HookEvent, bool) {
	i := slices.IndexFunc(a.Events, func(e HookEvent) bool { return e.Name == name })
	if i < 0 {
		return HookEvent{}, false
	}
	return a.Events[i], true
}

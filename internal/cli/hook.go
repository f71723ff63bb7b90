package cli

import (
	"context"

	"github.com/git-checkpoint/git-checkpoint/internal/hook"
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
// it (DESIGN invariant 6). Package hook does the work and writes whatever
// goes wrong to hook.log; what it returns is for the agent to read.
func (h *hookCmd) Run(ctx context.Context, sys *IO, g *Globals) error {
	out := hook.Run(ctx, hook.Call{Agent: h.Agent, Args: h.Args, Stdin: sys.Stdin, Getenv: sys.Getenv,
		Open: options(sys, g, false)})
	if len(out) > 0 {
		sys.Stdout.Write(out)
	}
	return nil
}

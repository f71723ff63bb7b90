package cli

import (
	"context"
	"runtime/debug"

	"github.com/git-checkpoint/git-checkpoint/internal/mcp"
)

type mcpCmd struct{}

func (c *mcpCmd) Help() string {
	return `A Model Context Protocol server on standard input and output, for agents:
tools to take a checkpoint, list checkpoints and turns, diff, plan a rewind and
apply a plan. Applying is off until the person runs 'git config
checkpoint.mcpRewind true', and never overwrites a person's edits. Register
it with 'git checkpoint install AGENT --mcp'.`
}

// Run serves one agent session. The tree is opened again for every tool
// call, so a server started outside a repository still starts (each call
// then says why it cannot work), and a change of HEAD or of the
// configuration is seen by the next call.
func (c *mcpCmd) Run(ctx context.Context, sys *IO, g *Globals) error {
	srv := &mcp.Server{Version: version(debug.ReadBuildInfo()), Open: func(ctx context.Context) (*mcp.Tree, error) {
		s, err := open(ctx, sys, g)
		if err != nil {
			return nil, err
		}
		return s.tree(), nil
	}}
	return srv.Serve(ctx, sys.Stdin, sys.Stdout)
}

// tree is this session's working tree as the MCP server's tools use it.
func (s *session) tree() *mcp.Tree {
	return &mcp.Tree{Git: s.git, Repo: s.repo, Store: s.store, Capture: s.cap, Config: s.cfg,
		Rewinder: s.rewinder(), Journal: s.journal, Lock: s.lock, Rel: s.rel, Resolve: s.resolveRecord}
}

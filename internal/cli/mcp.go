package cli

import (
	"context"
	"io"
	"runtime/debug"
	"syscall"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/program"
	"github.com/git-checkpoint/git-checkpoint/internal/workspace"
)

// MCPServer is the program that serves the Model Context Protocol.
// `git checkpoint mcp` runs it in its own place: the server and the SDK it
// is built on (with net/http, TLS and a JSON schema library) made every
// start of git-checkpoint slower, a large part of a hook with nothing to do
// (docs/speed.md, "Every process counts"), as git keeps its HTTP transport
// in git-remote-https for the same reason.
const MCPServer = program.MCPServer

type mcpCmd struct{}

func (c *mcpCmd) Help() string {
	return `A Model Context Protocol server on standard input and output, for agents:
tools to take a checkpoint, list checkpoints and turns, diff, plan a rewind and
apply a plan. Applying is off until the person runs 'git config --global
checkpoint.mcpRewind true', and never overwrites a person's edits. Register
it with 'git checkpoint install AGENT --mcp'. The server is the program
git-checkpoint-mcp, installed beside git-checkpoint.`
}

// Run replaces this process with the server (exec), which then owns the
// agent's pipes; it returns only when the server cannot be started.
func (c *mcpCmd) Run(sys *IO, g *Globals) error {
	path := FindMCPServer(sys.Getenv("PATH"))
	if path == "" {
		return fault.New(fault.NotFoundCommand, "the MCP server %s is not installed beside git-checkpoint or on PATH", MCPServer).
			WithHint("install it with git-checkpoint: 'make install', or 'go install github.com/git-checkpoint/git-checkpoint/cmd/...@latest'")
	}
	args := []string{MCPServer}
	if g.Chdir != "" {
		args = append(args, "-C", g.Chdir)
	}
	err := syscall.Exec(path, args, sys.Environ())
	return fault.Wrap(err, fault.FailedIO, "cannot start the MCP server %s", path)
}

// FindMCPServer finds git-checkpoint-mcp beside the running binary (where
// make install, go install and the release archives put both; symlinks
// resolved), else on pathEnv; "" when it is in neither place.
func FindMCPServer(pathEnv string) string { return program.Beside(MCPServer, pathEnv) }

// Serve serves one agent session on in and out, opening the working tree
// with open for each tool call: what git-checkpoint-mcp runs (package
// mcp).
type Serve func(ctx context.Context, version string, open func(context.Context) (*workspace.Workspace, error), in io.Reader, out io.Writer) error

// mcpCLI is the grammar of git-checkpoint-mcp.
type mcpCLI struct {
	Globals
	Serve serveCmd `cmd:"" default:"1" help:"Serve one agent session on standard input and output."`
}

type serveCmd struct {
	serve Serve // what MCP was given: package mcp's server
}

// Run serves one agent session. The tree is opened again for every tool
// call, so a server started outside a repository still starts (each call
// then says why it cannot work), and a change of HEAD or of the
// configuration is seen by the next call.
func (c *serveCmd) Run(ctx context.Context, sys *IO, g *Globals) error {
	return c.serve(ctx, version(debug.ReadBuildInfo()), func(ctx context.Context) (*workspace.Workspace, error) {
		return workspace.Open(ctx, options(sys, g, false))
	}, sys.Stdin, sys.Stdout)
}

// MCP runs git-checkpoint-mcp with args and returns its exit status.
func MCP(args []string, sys *IO, serve Serve) int {
	c := mcpCLI{Serve: serveCmd{serve}}
	return run("git checkpoint-mcp", grammar{model: &c, globals: &c.Globals}, args, sys,
		"The Model Context Protocol server of git-checkpoint, on standard input and output; agents start it as 'git-checkpoint mcp'.")
}

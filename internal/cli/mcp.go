package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"syscall"

	"github.com/git-checkpoint/git-checkpoint/internal/capture"
	"github.com/git-checkpoint/git-checkpoint/internal/config"
	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/rewind"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// MCPServer is the name of the binary that serves the Model Context
// Protocol. `git checkpoint mcp` runs it in its own place: the server and
// the SDK it is built on (with net/http, TLS and a JSON schema library)
// made every start of git-checkpoint about 6 ms slower, a third of a hook
// with nothing to do (docs/speed.md, "Every process counts"), as git keeps its
// HTTP transport in git-remote-https for the same reason.
const MCPServer = "git-checkpoint-mcp"

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
func FindMCPServer(pathEnv string) string { return findHelper(MCPServer, pathEnv) }

// findHelper finds the helper program name beside the running binary,
// else on pathEnv; "" when it is in neither place.
func findHelper(name, pathEnv string) string {
	if self, err := os.Executable(); err == nil {
		if self, err = filepath.EvalSymlinks(self); err == nil {
			beside := filepath.Join(filepath.Dir(self), name)
			if fi, err := os.Stat(beside); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
				return beside
			}
		}
	}
	path, _ := lookPath(name, "/", pathEnv)
	return path
}

// Tree is a working tree opened for the MCP server, which opens one for
// every tool call: the server lives as long as the agent's session, and
// HEAD, the configuration (checkpoint.mcpRewind above all) and the store
// may change under it between two calls.
type Tree struct {
	Git      *git.Runner
	Repo     *git.Repo
	Store    *store.Store
	Capture  *capture.Capturer
	Config   config.Config
	Rewinder *rewind.Rewinder
	// Journal reads the journal and the checkpoint refs, repairing what a
	// crashed run left, as every command does.
	Journal func(context.Context) (*store.Journal, map[int]string, error)
	// Lock takes the store lock, as a writer does.
	Lock func(context.Context) (unlock func(), err error)
	// Resolve finds the checkpoint an id names: this tree's (in the
	// journal and refs given), or a fetched store's ("1c1aecbe:k3"), as
	// every command does.
	Resolve func(ctx context.Context, j *store.Journal, refs map[int]string, id string) (*store.Record, error)
	// Rel turns a path the model gave (absolute, or relative to where the
	// server runs) into one from the top of the tree, refusing one
	// outside it.
	Rel func(string) (string, error)
}

// Serve serves one agent session on in and out, opening the working tree
// with open for each tool call: what git-checkpoint-mcp runs (package
// mcp).
type Serve func(ctx context.Context, version string, open func(context.Context) (*Tree, error), in io.Reader, out io.Writer) error

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
	return c.serve(ctx, version(debug.ReadBuildInfo()), func(ctx context.Context) (*Tree, error) {
		s, err := open(ctx, sys, g)
		if err != nil {
			return nil, err
		}
		return s.tree(), nil
	}, sys.Stdin, sys.Stdout)
}

// MCP runs git-checkpoint-mcp with args and returns its exit status.
func MCP(args []string, sys *IO, serve Serve) int {
	c := mcpCLI{Serve: serveCmd{serve}}
	return run("git checkpoint-mcp", grammar{model: &c, globals: &c.Globals}, args, sys,
		"The Model Context Protocol server of git-checkpoint, on standard input and output; agents start it as 'git-checkpoint mcp'.")
}

// tree is this session's working tree as the MCP server's tools use it.
func (s *session) tree() *Tree {
	return &Tree{Git: s.git, Repo: s.repo, Store: s.store, Capture: s.cap, Config: s.cfg,
		Rewinder: s.rewinder(), Journal: s.journal, Lock: s.lock, Rel: s.rel, Resolve: s.resolveRecord}
}

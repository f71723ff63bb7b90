// Command git-checkpoint-mcp is the Model Context Protocol server of
// git-checkpoint; agents start it as `git-checkpoint mcp`, which runs it in
// its place. See git-checkpoint(1), section mcp.
package main

import (
	"os"

	"github.com/git-checkpoint/git-checkpoint/internal/cli"
	"github.com/git-checkpoint/git-checkpoint/internal/mcp"
)

func main() { os.Exit(cli.MCP(os.Args[1:], cli.System(), mcp.Run)) }

package doctor

import (
	"context"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/agents"
)

// checkMCP finds the agents' registrations of the MCP server and checks
// that the server is there: an agent starts `git-checkpoint mcp`, which
// runs git-checkpoint-mcp, and without it the model's checkpoint tools
// fail to start.
func (d *Doctor) checkMCP(context.Context) ([]Check, error) {
	regs := agents.MCPRegistrations(agents.Env{Top: d.Repo.Top, Home: d.Getenv("HOME"), Getenv: d.Getenv})
	if len(regs) == 0 || d.FindMCPServer == nil {
		return nil, nil
	}
	var where []string
	for _, r := range regs {
		where = append(where, r.Agent+" ("+r.Path+")")
	}
	if server := d.FindMCPServer(d.Getenv("PATH")); server != "" {
		return []Check{{Name: "mcp", OK: true, Message: "mcp: registered for " + strings.Join(where, ", ") + "; the server is " + server}}, nil
	}
	return []Check{{Name: "mcp", Message: "mcp: registered for " + strings.Join(where, ", ") + ", but git-checkpoint-mcp, the server, is neither beside git-checkpoint nor on PATH: the model's checkpoint tools fail to start",
		Fix: "install it with git-checkpoint ('make install', or 'go install github.com/git-checkpoint/git-checkpoint/cmd/...@latest'), or remove the registration with 'git checkpoint uninstall AGENT --mcp'"}}, nil
}

package doctor

import (
	"context"
	"fmt"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/agents"
	"github.com/git-checkpoint/git-checkpoint/internal/program"
)

// checkMCP finds the agents' registrations of the MCP server and checks
// that the server is there: an agent starts `git-checkpoint mcp`, which
// runs git-checkpoint-mcp, and without it the model's checkpoint tools
// fail to start.
func (d *Doctor) checkMCP(context.Context) ([]Check, error) {
	env := d.agentEnv()
	var checks []Check
	for _, p := range agents.MCPConfigPassing(env) {
		checks = append(checks, Check{Name: "mcp_config", Message: "mcp: " + DescribePassing(p, p.Path),
			Fix: "remove " + strings.Join(p.What, ", ") + " from the server " + p.Server + " in " + p.Path +
				" (or 'git checkpoint uninstall " + p.Agent + " --mcp', then install it again); turn the setting on, if you mean to, with 'git config --global checkpoint.mcpRewind true'"})
	}
	regs := agents.MCPRegistrations(env)
	if len(regs) == 0 {
		return checks, nil
	}
	var where []string
	for _, r := range regs {
		where = append(where, r.Agent+" ("+r.Path+")")
	}
	if server := program.Beside(program.MCPServer, d.Getenv("PATH")); server != "" {
		return append(checks, Check{Name: "mcp", OK: true, Message: "mcp: registered for " + strings.Join(where, ", ") + "; the server is " + server}), nil
	}
	return append(checks, Check{Name: "mcp", Message: "mcp: registered for " + strings.Join(where, ", ") + ", but git-checkpoint-mcp, the server, is neither beside git-checkpoint nor on PATH: the model's checkpoint tools fail to start",
		Fix: "install it with git-checkpoint ('make install', or 'go install github.com/git-checkpoint/git-checkpoint/cmd/...@latest'), or remove the registration with 'git checkpoint uninstall AGENT --mcp'"}), nil
}

// DescribePassing says what a registration that passes git configuration
// to the server does, naming its file as where (for status and doctor).
func DescribePassing(p agents.Passing, where string) string {
	return fmt.Sprintf("%s's server %s in %s passes git configuration (%s): a repository can ship that, so the server ignores it for checkpoint.mcpRewind, which only your global or system configuration turns on",
		p.Agent, p.Server, where, strings.Join(p.What, ", "))
}

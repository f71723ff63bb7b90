package cli

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/agents"
	"github.com/git-checkpoint/git-checkpoint/internal/fault"
)

type installCmd struct {
	Agent string `arg:"" enum:"${agents}" help:"${agent_names}."`
	Scope string `enum:"local,project,user" default:"local" help:"local (this tree, not shared), project (shared with the repository) or user (every project)."`
	Print bool   `help:"Print the configuration for setting it up by hand; change nothing."`
	MCP   bool   `name:"mcp" help:"Register the MCP server (git checkpoint mcp) with the agent instead of the hooks."`
}

func (c *installCmd) Help() string {
	return `Adds git-checkpoint's hooks to an agent's configuration, keeping everything
else in it byte for byte; running it again changes nothing. Claude Code:
.claude/settings.local.json (--scope project: .claude/settings.json, --scope
user: ~/.claude/settings.json). Codex: .codex/hooks.json (user:
~/.codex/hooks.json) and notify in ~/.codex/config.toml, which wraps a notify
program already there. Gemini CLI: .gemini/settings.json (user:
~/.gemini/settings.json). GitHub Copilot CLI: the hooks of
.github/copilot/settings.local.json (project: .github/copilot/settings.json,
user: ~/.copilot/settings.json). OpenCode: a plugin of its own,
.opencode/plugins/git-checkpoint.js (user: ~/.config/opencode/plugins/); a
file of that name that is not git-checkpoint's is refused. Qwen Code:
.qwen/settings.json (user: ~/.qwen/settings.json). Pi: an extension of its
own, .pi/extensions/git-checkpoint.ts (user: ~/.pi/agent/extensions/),
refused in the same way. Kimi Code: a block of [[hooks]] at the end of
~/.kimi-code/config.toml, the only file it reads hooks from, whatever the
scope. Cursor: .cursor/hooks.json (user:
~/.cursor/hooks.json), on its four turn and edit events only. Cline: one
script per event in .clinerules/hooks/ (user: ~/Documents/Cline/Hooks/),
refused in the same way. aider: a
post-commit hook in the hooks directory git uses (core.hooksPath respected),
before an existing hook's own commands.

With --mcp it registers the MCP server instead, where the agent reads MCP
servers: Claude Code ~/.claude.json (local: the project's entry; user: its
top) or .mcp.json (--scope project); Codex a table at the end of
~/.codex/config.toml; Gemini CLI mcpServers in .gemini/settings.json (user:
~/.gemini/settings.json); Qwen Code mcpServers in .qwen/settings.json; Kimi
Code mcpServers in .kimi-code/mcp.json (user: ~/.kimi-code/mcp.json). A
server of the user's under the same name is left alone.`
}

type uninstallCmd struct {
	Agent string `arg:"" enum:"${agents}" help:"${agent_names}."`
	Scope string `enum:"local,project,user" default:"local" help:"The scope given to install."`
	MCP   bool   `name:"mcp" help:"Remove the MCP server's registration that install --mcp added instead of the hooks."`
}

func (c *uninstallCmd) Help() string {
	return `Removes exactly what 'git checkpoint install' added (recognised by the command
it runs, in this version or an older one): the user's own hooks and settings
stay, and a notify program or post-commit hook that install wrapped is put
back as it was.`
}

// installDoc is the JSON document of install and uninstall.
type installDoc struct {
	Agent string        `json:"agent"`
	Scope string        `json:"scope"`
	Files []agents.File `json:"files"`
	Notes []string      `json:"notes"`
}

func (c *installCmd) Run(ctx context.Context, sys *IO, g *Globals) error {
	if c.Print {
		return printSnippets(sys, g, c.Agent, c.MCP)
	}
	env, out, cwd := agentEnv(ctx, sys, g)
	install := agents.Install
	if c.MCP {
		install = agents.InstallMCP
	}
	res, err := install(c.Agent, c.Scope, env)
	if err != nil {
		return err
	}
	return printInstall(out, env, cwd, installDoc{c.Agent, c.Scope, res.Files, res.Notes})
}

func (c *uninstallCmd) Run(ctx context.Context, sys *IO, g *Globals) error {
	env, out, cwd := agentEnv(ctx, sys, g)
	uninstall := agents.Uninstall
	if c.MCP {
		uninstall = agents.UninstallMCP
	}
	res, err := uninstall(c.Agent, c.Scope, env)
	if err != nil {
		return err
	}
	return printInstall(out, env, cwd, installDoc{c.Agent, c.Scope, res.Files, res.Notes})
}

// agentEnv finds where agents' configuration lives, and whether git's
// hooks directory lies outside the repository's git directory (where
// core.hooksPath can share it with other repositories). Outside a
// repository only --scope user works, so not finding one is no error here.
func agentEnv(ctx context.Context, sys *IO, g *Globals) (env agents.Env, out *printer, cwd string) {
	env = agents.Env{Home: sys.Getenv("HOME"), Getenv: sys.Getenv}
	cwd, _ = filepath.Abs(g.Chdir)
	s, err := open(ctx, sys, g)
	if err != nil {
		return env, newPrinter(sys, g), cwd
	}
	env.Top = s.Repo.Top
	// Without the pinned core.hooksPath=/dev/null: the user's own setting
	// says where git looks for hooks.
	if hooks, err := s.Git.UserGitPath(ctx, "hooks"); err == nil {
		env.HooksDir = hooks
		rel, err := filepath.Rel(s.Repo.CommonDir, env.HooksDir)
		env.HooksShared = err != nil || strings.HasPrefix(rel, "..")
	}
	return env, s.out, s.Cwd
}

func printInstall(out *printer, env agents.Env, cwd string, doc installDoc) error {
	if doc.Notes == nil {
		doc.Notes = []string{}
	}
	if out.json {
		return out.JSON(doc)
	}
	for _, f := range doc.Files {
		out.Printf("%-9s %s\n", f.Action, fault.Quote(displayPath(f.Path, cwd, env.Home)))
	}
	for _, n := range doc.Notes {
		out.Printf("note: %s\n", n)
	}
	return nil
}

// displayPath shows p relative to where the command runs, or as ~/...: a
// user's file reads best from ~ unless the command runs inside the home
// directory, where files of the repository read best from there.
func displayPath(p, cwd, home string) string {
	fromHome, errHome := filepath.Rel(home, p)
	underHome := home != "" && errHome == nil && !strings.HasPrefix(fromHome, "..")
	inHome := false
	if rel, err := filepath.Rel(home, cwd); home != "" && err == nil && !strings.HasPrefix(rel, "..") {
		inHome = true
	}
	if underHome && !inHome {
		return "~/" + filepath.ToSlash(fromHome)
	}
	if rel, err := filepath.Rel(cwd, p); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	if underHome {
		return "~/" + filepath.ToSlash(fromHome)
	}
	return p
}

func printSnippets(sys *IO, g *Globals, agent string, mcp bool) error {
	snippets, err := agents.Snippets(agent)
	if mcp {
		var s agents.Snippet
		s, err = agents.MCPSnippet(agent)
		snippets = []agents.Snippet{s}
	}
	if err != nil {
		return err
	}
	out := newPrinter(sys, g)
	if out.json {
		return out.JSON(map[string]any{"agent": agent, "snippets": snippets})
	}
	for i, s := range snippets {
		if i > 0 {
			out.Printf("\n")
		}
		out.Printf("# %s, for %s:\n%s", s.Name, s.Where, s.Content)
	}
	return nil
}

package config

import (
	"path/filepath"
	"slices"
	"strings"
)

// The model's rewind switch, checkpoint.mcpRewind, is the person's
// consent: with it on, the model applies rewinds through the MCP server
// itself. So it must not be something a repository can ship or an agent's
// server registration can pass, as git reads safe.directory only from
// the configuration the person controls. true counts only:
//
//   - from the global or system scope (~/.gitconfig,
//     $XDG_CONFIG_HOME/git/config, the system file), never the
//     repository's own (local, worktree: a README's `git config
//     include.path ../.gitconfig` hands it to the repository's
//     committers);
//   - from a file: git's command line and the environment
//     (GIT_CONFIG_PARAMETERS, GIT_CONFIG_COUNT and its pairs, GIT_CONFIG)
//     are what an .mcp.json's "env" or "args" set, and status could never
//     show what a server started so sees;
//   - from a file git found itself, not one the environment named
//     (GIT_CONFIG_GLOBAL, GIT_CONFIG_SYSTEM);
//   - from a file outside the repository (its tree, its git directory),
//     which an include or includeIf of a person's global file, or a HOME
//     set to a folder of the tree, would otherwise lead to.
//
// false counts from any file, so that a person can turn the switch off for
// one repository; the environment counts for neither.

// Ignored is a value of checkpoint.mcpRewind that turned nothing on: one
// set where a repository or a server's registration could set it.
type Ignored struct {
	Scope string `json:"scope"`          // git's: local, global, command...
	File  string `json:"file,omitempty"` // "" for the command line
	Value string `json:"value"`
}

// switchValue is one value of checkpoint.mcpRewind as git gave it.
type switchValue struct {
	on            bool
	raw           string
	scope, origin string
	// named says the environment named the file of its scope
	// (GIT_CONFIG_GLOBAL, GIT_CONFIG_SYSTEM).
	named bool
}

// addSwitch keeps a value of checkpoint.mcpRewind for Within to weigh.
func (c *Config) addSwitch(on bool, raw, scope, origin string, env []string) {
	named := (scope == "global" && setVar(env, "GIT_CONFIG_GLOBAL")) || (scope == "system" && setVar(env, "GIT_CONFIG_SYSTEM"))
	c.switches = append(c.switches, switchValue{on: on, raw: raw, scope: scope, origin: origin, named: named})
}

// setVar reports whether env sets name to something.
func setVar(env []string, name string) bool {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, name+"="); ok && v != "" {
			return true
		}
	}
	return false
}

// Within decides the switch for the repository whose working tree is top
// and whose git directories are dirs (its own and the common one): until
// it is called, MCPRewind is off. git gives the file of a value of the
// repository's own configuration relative to top.
func (c *Config) Within(top string, dirs ...string) {
	c.MCPRewind, c.MCPIgnored = false, nil
	inside := append([]string{top}, dirs...)
	for _, v := range c.switches {
		file, isFile := strings.CutPrefix(v.origin, "file:")
		if isFile && file != "" && !filepath.IsAbs(file) {
			file = filepath.Join(top, file)
		}
		if isFile && v.scope != "command" && !v.on {
			c.MCPRewind, c.MCPIgnored = false, nil // a later true may still count
			continue
		}
		personal := v.scope == "global" || v.scope == "system"
		if isFile && personal && !v.named && !under(file, inside) {
			c.MCPRewind = v.on
			continue
		}
		if v.on {
			ig := Ignored{Scope: v.scope, Value: v.raw}
			if isFile {
				ig.File = filepath.Clean(file)
			}
			c.MCPIgnored = append(c.MCPIgnored, ig)
		}
	}
	if c.MCPRewind {
		c.MCPIgnored = nil
	}
}

// under reports whether file is in one of dirs, as named or with the
// symbolic links of its folder and theirs followed: a HOME or an include
// may reach the tree through a link. The file itself is not followed: a
// person's ~/.gitconfig may be a link into their own dotfiles repository.
func under(file string, dirs []string) bool {
	names := []string{filepath.Clean(file)}
	if d, err := filepath.EvalSymlinks(filepath.Dir(file)); err == nil {
		names = append(names, filepath.Join(d, filepath.Base(file)))
	}
	for _, dir := range dirs {
		if dir == "" {
			continue
		}
		roots := []string{filepath.Clean(dir)}
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			roots = append(roots, r)
		}
		if slices.ContainsFunc(names, func(n string) bool {
			return slices.ContainsFunc(roots, func(r string) bool {
				rel, err := filepath.Rel(r, n)
				return err == nil && filepath.IsLocal(rel)
			})
		}) {
			return true
		}
	}
	return false
}

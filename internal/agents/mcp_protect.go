package agents

import (
	"os"
	"slices"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/jsontext"
)

// treeMCP is a file inside a working tree where install --mcp registers
// the server, and the keys leading to the object of servers in it.
type treeMCP struct {
	rel  string
	keys []string
}

// treeMCPFiles are the files of the tree where an agent reads MCP
// servers (Claude Code's .mcp.json, Gemini CLI's .gemini/settings.json),
// relative to its top. The others are outside it: ~/.claude.json,
// Codex's config.toml.
func treeMCPFiles() []treeMCP {
	const top, home = "/top", "/home"
	env := Env{Top: top, Home: home, Getenv: func(string) string { return "" }}
	var files []treeMCP
	for _, a := range registry {
		p := a.mcp
		if p == nil || p.toml {
			continue
		}
		for _, scope := range a.Scopes {
			rel, ok := strings.CutPrefix(p.file(scope, env), top+"/")
			if ok && scope != ScopeUser && !slices.ContainsFunc(files, func(f treeMCP) bool { return f.rel == rel }) {
				files = append(files, treeMCP{rel, p.keys(scope, env)})
			}
		}
	}
	return files
}

// TreeMCPFiles are the files of a working tree, relative to its top, that
// can register git-checkpoint's MCP server: where a rewind must not take
// the registration away or bring it back (see RegistersMCP).
func TreeMCPFiles() []string {
	var rels []string
	for _, f := range treeMCPFiles() {
		rels = append(rels, f.rel)
	}
	return rels
}

// RegistersMCP reports whether text, the file at rel of a tree (one of
// TreeMCPFiles), registers git-checkpoint's MCP server.
func RegistersMCP(rel string, text []byte) bool {
	for _, f := range treeMCPFiles() {
		if f.rel == rel {
			return registersIn(text, f.keys)
		}
	}
	return false
}

// registersIn reports whether the JSON text holds git-checkpoint's server
// in the object at keys.
func registersIn(text []byte, keys []string) bool {
	d, err := jsontext.Open(text)
	if err != nil {
		return false
	}
	v := d.Get(append(slices.Clone(keys), MCPServer)...)
	return v != nil && ourServer(v)
}

// Registration is a place where an agent finds git-checkpoint's MCP
// server for this tree.
type Registration struct {
	Agent string `json:"agent"`
	Scope string `json:"scope"`
	Path  string `json:"path"`
}

// MCPRegistrations are the places whose registration of the server an
// agent started in the tree at env.Top would read, in registry order:
// the tree's own files and the user's.
func MCPRegistrations(env Env) []Registration {
	var out []Registration
	eachMCPFile(env, func(a Agent, p *mcpPlace, scope, path string, keys []string, b []byte) {
		if p.toml {
			if _, _, ok := findMCPBlock(string(b)); !ok {
				return
			}
		} else if !registersIn(b, keys) {
			return
		}
		out = append(out, Registration{Agent: a.Name, Scope: scope, Path: path})
	})
	return out
}

// eachMCPFile calls f with each file, in registry order, where an agent
// started in the tree at env.Top reads its MCP servers, once a file and
// object: its scope, the keys of the servers' object (none in TOML) and
// its bytes. A file that cannot be read is passed over.
func eachMCPFile(env Env, f func(a Agent, p *mcpPlace, scope, path string, keys []string, b []byte)) {
	for _, a := range registry {
		p := a.mcp
		if p == nil {
			continue
		}
		var seen []string
		for _, scope := range a.Scopes {
			if p.toml && scope != ScopeUser {
				continue // one file, the user's, for every scope
			}
			path := p.file(scope, env)
			var keys []string
			if !p.toml {
				keys = p.keys(scope, env)
			}
			key := path + "\x00" + strings.Join(keys, "\x00")
			if slices.Contains(seen, key) {
				continue
			}
			seen = append(seen, key)
			b, err := os.ReadFile(path)
			if err != nil {
				continue
			}
			f(a, p, scope, path, keys, b)
		}
	}
}

package agents

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/jsontext"
)

// A registration of the server that passes git configuration through
// the environment or the command line (an .mcp.json entry whose "env"
// sets GIT_CONFIG_COUNT, or whose command is git with "-c" in its
// "args") is how a repository would turn on checkpoint.mcpRewind: the
// server ignores configuration from there (config.Within), and status
// and doctor name the registration, so the person sees what it tried.

// Passing is a registration of git-checkpoint's MCP server that passes
// git configuration: What names each variable or option.
type Passing struct {
	Agent  string   `json:"agent"`
	Scope  string   `json:"scope"`
	Path   string   `json:"path"`
	Server string   `json:"server"`
	What   []string `json:"what"`
}

// configVar reports whether an environment variable passes git
// configuration, or moves the files git reads it from.
func configVar(name string) bool {
	return strings.HasPrefix(name, "GIT_CONFIG") || name == "HOME" || name == "XDG_CONFIG_HOME"
}

// configArgs are the arguments of a command line that give git
// configuration: -c and --config-env, in any spelling git takes.
func configArgs(args []string) []string {
	var out []string
	for _, a := range args {
		if a == "-c" || (strings.HasPrefix(a, "-c") && strings.Contains(a, "=")) || strings.HasPrefix(a, "--config-env") {
			out = append(out, "args "+a)
		}
	}
	return out
}

// runsServer reports whether command with args starts git-checkpoint's
// MCP server: git-checkpoint (or its server) itself, or git running the
// checkpoint command.
func runsServer(command string, args []string) bool {
	switch filepath.Base(command) {
	case mcpCommand, mcpCommand + "-mcp":
		return true
	case "git":
		return slices.ContainsFunc(args, func(a string) bool { return a == "checkpoint" || a == "checkpoint-mcp" })
	}
	return false
}

// passes returns what a server entry passes, for one that starts
// git-checkpoint's server.
func passes(command string, args, envNames []string) []string {
	if !runsServer(command, args) {
		return nil
	}
	what := configArgs(args)
	for _, n := range envNames {
		if configVar(n) {
			what = append(what, "env "+n)
		}
	}
	return what
}

// MCPConfigPassing lists the registrations an agent started in the tree
// at env.Top would read (the places MCPRegistrations looks in, every
// server there, whatever its name) that start git-checkpoint's server
// passing git configuration.
func MCPConfigPassing(env Env) []Passing {
	var out []Passing
	eachMCPFile(env, func(a Agent, p *mcpPlace, scope, path string, keys []string, b []byte) {
		var found []Passing
		if p.toml {
			found = passingTOML(string(b))
		} else {
			found = passingJSON(b, keys)
		}
		for _, f := range found {
			f.Agent, f.Scope, f.Path = a.Name, scope, path
			out = append(out, f)
		}
	})
	return out
}

// passingJSON reads the servers of the object at keys.
func passingJSON(text []byte, keys []string) []Passing {
	d, err := jsontext.Open(text)
	if err != nil {
		return nil
	}
	servers := d.Get(keys...)
	if servers == nil || servers.Kind != jsontext.Object {
		return nil
	}
	var out []Passing
	for _, m := range servers.Members {
		v := m.Value
		command, args, names := "", []string(nil), []string(nil)
		if c := v.Get("command"); c != nil && c.Kind == jsontext.String {
			command = c.Str
		}
		if a := v.Get("args"); a != nil && a.Kind == jsontext.Array {
			for _, e := range a.Elems {
				args = append(args, e.Str)
			}
		}
		if e := v.Get("env"); e != nil && e.Kind == jsontext.Object {
			for _, em := range e.Members {
				names = append(names, em.Key)
			}
		}
		if what := passes(command, args, names); len(what) > 0 {
			out = append(out, Passing{Server: m.Key, What: what})
		}
	}
	return out
}

// passingTOML reads Codex's [mcp_servers.NAME] tables: command, args,
// and env as an inline table, dotted keys or an [mcp_servers.NAME.env]
// table.
func passingTOML(src string) []Passing {
	type server struct {
		command     string
		args, names []string
	}
	servers := map[string]*server{}
	var order []string
	get := func(name string) *server {
		if servers[name] == nil {
			servers[name] = &server{}
			order = append(order, name)
		}
		return servers[name]
	}
	var table []string
	for pos := 0; pos < len(src); {
		i := skipBlank(src, pos)
		if i >= len(src) || src[i] == '\n' || src[i] == '\r' || src[i] == '#' {
			pos = lineEnd(src, i)
			continue
		}
		if src[i] == '[' {
			table = nil
			if i+1 < len(src) && src[i+1] != '[' {
				if path, _, err := readKey(src, i+1); err == nil {
					table = path
				}
			}
			pos = lineEnd(src, i)
			continue
		}
		path, j, err := readKey(src, i)
		if err != nil {
			return nil
		}
		j = skipBlank(src, j)
		if j >= len(src) || src[j] != '=' {
			return nil
		}
		vs := skipBlank(src, j+1)
		ve, err := skipValue(src, vs)
		if err != nil {
			return nil
		}
		pos = lineEnd(src, ve)
		full := append(slices.Clone(table), path...)
		if len(full) < 3 || full[0] != "mcp_servers" {
			continue
		}
		s, value := get(full[1]), src[vs:ve]
		switch rest := full[2:]; {
		case len(rest) == 1 && rest[0] == "command":
			s.command, _ = decodeString(value)
		case len(rest) == 1 && rest[0] == "args":
			s.args, _ = stringList(value)
		case len(rest) == 1 && rest[0] == "env":
			s.names = append(s.names, inlineKeys(value)...)
		case len(rest) == 2 && rest[0] == "env":
			s.names = append(s.names, rest[1])
		}
	}
	var out []Passing
	for _, name := range order {
		s := servers[name]
		if what := passes(s.command, s.args, s.names); len(what) > 0 {
			out = append(out, Passing{Server: name, What: what})
		}
	}
	return out
}

// inlineKeys are the keys of a TOML inline table, { A = "1", B = "2" }.
func inlineKeys(value string) []string {
	if !strings.HasPrefix(value, "{") {
		return nil
	}
	var keys []string
	for i := 1; i < len(value); {
		for i < len(value) && strings.ContainsRune(" \t\r\n,", rune(value[i])) {
			i++
		}
		if i >= len(value) || value[i] == '}' {
			break
		}
		path, j, err := readKey(value, i)
		if err != nil {
			break
		}
		j = skipBlank(value, j)
		if j >= len(value) || value[j] != '=' {
			break
		}
		end, err := skipValue(value, skipBlank(value, j+1))
		if err != nil {
			break
		}
		keys, i = append(keys, strings.Join(path, ".")), end
	}
	return keys
}

package agents

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/jsontext"
)

// MCPServer is the name install --mcp registers `git checkpoint mcp`
// under, which agents put before its tools' names (Claude Code:
// mcp__git-checkpoint__rewind_plan).
const MCPServer = "git-checkpoint"

// mcpPlace is where an agent reads its MCP servers: a JSON settings file
// holding an object of servers by name (Claude Code, Gemini CLI), or
// Codex's config.toml and its [mcp_servers.NAME] tables.
type mcpPlace struct {
	where string // for --print: the files, as a person reads them
	// file is the file for scope; keys lead from its root to the object
	// of servers (JSON only).
	file func(scope string, env Env) string
	keys func(scope string, env Env) []string
	// entry is the server as the agent's format writes it (JSON only).
	entry string
	toml  bool
	// notes say what the agent still needs, after an install for scope.
	notes func(scope string) []string
}

// mcpCommand is the command every agent runs: the one on PATH, as the
// hooks call it.
const mcpCommand = "git-checkpoint"

// InstallMCP registers the MCP server with agent for scope, merging it
// into the file the agent reads: everything else stays byte for byte, a
// server of the user's under the same name is left alone, and a second
// run changes nothing.
func InstallMCP(agent, scope string, env Env) (*Result, error) {
	p, path, err := mcpFile(agent, scope, env)
	if err != nil {
		return nil, err
	}
	var f File
	var notes []string
	if p.toml {
		f, notes, err = installMCPTOML(env, path)
	} else {
		f, notes, err = installMCPJSON(env, path, p.keys(scope, env), p.entry)
	}
	if err != nil {
		return nil, err
	}
	if p.notes != nil {
		notes = append(notes, p.notes(scope)...)
	}
	return &Result{Files: []File{f}, Notes: notes}, nil
}

// UninstallMCP removes exactly what InstallMCP added: a file still as
// install left it gets its bytes from before back; any other loses the
// server git-checkpoint registered, and the objects that only held it.
func UninstallMCP(agent, scope string, env Env) (*Result, error) {
	p, path, err := mcpFile(agent, scope, env)
	if err != nil {
		return nil, err
	}
	src, err := readFile(path)
	if err != nil {
		return nil, err
	}
	if src == nil {
		return &Result{Files: []File{{Path: path, Action: "absent"}}}, nil
	}
	var f File
	switch rec := loadUndo(env, path, partMCP); {
	case rec != nil && rec.After == digest(src) && rec.Absent:
		f, err = removeMCPFile(path, env, rec.Dirs)
	case rec != nil && rec.After == digest(src):
		f, err = writeIfChanged(path, src, rec.Before)
	case p.toml:
		f, err = writeIfChanged(path, src, []byte(removeMCPBlock(string(src))))
	default:
		f, err = removeMCPJSON(env, path, src, p.keys(scope, env), rec)
	}
	if err != nil {
		return nil, err
	}
	forgetInstall(env, path, partMCP)
	return &Result{Files: []File{f}}, nil
}

// removeMCPFile deletes a file install created: with its directory when
// that is the agent's own and empty now, and the directories install
// created for it (removeFile), never the home directory or the tree's
// top, where .claude.json and .mcp.json are.
func removeMCPFile(path string, env Env, created []string) (File, error) {
	if dir := filepath.Dir(path); dir != env.Home && dir != env.Top {
		return removeFile(path, created...)
	}
	if err := os.Remove(path); err != nil {
		return File{}, fault.Wrap(err, fault.FailedIO, "cannot remove %s", path)
	}
	return File{Path: path, Action: "removed"}, nil
}

// MCPSnippet is the registration for setting agent up by hand.
func MCPSnippet(agent string) (Snippet, error) {
	a, ok := Lookup(agent)
	if !ok {
		return Snippet{}, unknownAgent(agent)
	}
	_, p, err := lookupMCP(agent, a.Scopes[0])
	if err != nil {
		return Snippet{}, err
	}
	if p.toml {
		return Snippet{"config.toml", p.where, mcpBlock}, nil
	}
	d, _ := jsontext.Open(nil)
	keys := p.keys(ScopeProject, Env{})
	d.Put(append(keys[len(keys)-1:], MCPServer), []byte(p.entry))
	return Snippet{a.Name + "-mcp.json", p.where, string(d.Src)}, nil
}

// mcpFile is the agent's MCP place and the file it registers servers in
// for scope.
func mcpFile(agent, scope string, env Env) (*mcpPlace, string, error) {
	a, p, err := lookupMCP(agent, scope)
	if err != nil {
		return nil, "", err
	}
	path, err := p.path(a, scope, env)
	return p, path, err
}

func lookupMCP(agent, scope string) (Agent, *mcpPlace, error) {
	a, err := lookupScope(agent, scope)
	if err != nil {
		return a, nil, err
	}
	if a.mcp == nil {
		return a, nil, fault.New(fault.InvalidUsage, "install --mcp does not register the server with %s", agent).
			WithHint("it registers it with " + strings.Join(mcpAgents(), ", ") + "; see git-checkpoint(1), MCP SERVER, to register it by hand")
	}
	return a, a.mcp, nil
}

func mcpAgents() []string {
	var names []string
	for _, a := range registry {
		if a.mcp != nil {
			names = append(names, a.Name)
		}
	}
	return names
}

// path is the file for scope, refusing a scope it cannot place (placed).
func (p *mcpPlace) path(a Agent, scope string, env Env) (string, error) {
	return placed(scope, env, "registers the server for one", p.file(scope, env))
}

// installMCPJSON puts the server into the object at keys of the JSON file
// at path.
func installMCPJSON(env Env, path string, keys []string, entry string) (File, []string, error) {
	src, err := readFile(path)
	if err != nil {
		return File{}, nil, err
	}
	d, err := jsontext.Open(src)
	if err == nil {
		if v := d.Get(keys...); v != nil && v.Kind != jsontext.Object {
			err = fmt.Errorf("%q is not an object", strings.Join(keys, "."))
		}
	}
	if err != nil {
		return File{}, nil, fault.New(fault.InvalidSettings, "cannot read %s: %v", path, err).
			WithHint("fix the file, or register the server by hand (see --mcp --print); nothing was changed")
	}
	var notes []string
	switch cur := d.Get(append(keys, MCPServer)...); {
	case cur == nil || (ourServer(cur) && !sameJSON(d.Text(cur), []byte(entry))):
		if err := d.Put(append(keys, MCPServer), []byte(entry)); err != nil {
			return File{}, nil, fault.New(fault.InvalidSettings, "cannot register the server in %s: %v", path, err).
				WithHint("fix the file, or register the server by hand (see --mcp --print)")
		}
	case !ourServer(cur):
		notes = append(notes, fmt.Sprintf("%s already registers a server named %s, not git-checkpoint's: left as it is", path, MCPServer))
	}
	dirs := missingDirs(path)
	f, err := writeIfChanged(path, src, d.Src)
	if err == nil && f.Action != "unchanged" {
		rememberInstall(env, path, partMCP, src, d.Src, dirs)
	}
	return f, notes, err
}

// ourServer reports whether v is a server git-checkpoint registered: its
// command is git-checkpoint, run with the argument mcp.
func ourServer(v *jsontext.Value) bool {
	c, args := v.Get("command"), v.Get("args")
	return c != nil && c.Kind == jsontext.String && filepath.Base(c.Str) == mcpCommand &&
		args != nil && args.Kind == jsontext.Array && len(args.Elems) == 1 && args.Elems[0].Str == "mcp"
}

// removeMCPJSON takes git-checkpoint's server out of the file, then each
// object on the way to it that this left empty, unless it was there
// before the install (rec, when known) or a comment is in it.
func removeMCPJSON(env Env, path string, src []byte, keys []string, rec *undoRecord) (File, error) {
	d, err := jsontext.Open(src)
	if err != nil {
		return File{}, fault.New(fault.InvalidSettings, "cannot read %s: %v", path, err).
			WithHint("fix the file, then run uninstall again; nothing was changed")
	}
	cur := d.Get(append(keys, MCPServer)...)
	if cur == nil || !ourServer(cur) {
		return File{Path: path, Action: "unchanged"}, nil
	}
	if err := d.Remove(cur); err != nil {
		return File{}, err
	}
	var before *jsontext.Doc
	if rec != nil && !rec.Absent {
		before, _ = jsontext.Open(rec.Before)
	}
	for i := len(keys); i > 0; i-- {
		v := d.Get(keys[:i]...)
		if v == nil || !d.Bare(v) || (before != nil && before.Get(keys[:i]...) != nil) {
			break
		}
		if err := d.Remove(v); err != nil {
			return File{}, err
		}
	}
	if rec != nil && rec.Absent && d.Bare(d.Root) {
		return removeMCPFile(path, env, rec.Dirs)
	}
	return writeIfChanged(path, src, d.Src)
}

// The block install --mcp appends to Codex's config.toml: a table of its
// own, so it goes at the end, where any table may be.
const (
	mcpBlockBegin = "# >>> git-checkpoint mcp v1 >>>"
	mcpBlockEnd   = "# <<< git-checkpoint mcp <<<"
	mcpBlock      = mcpBlockBegin + "\n" +
		"# The checkpoints of the working tree, for the model. 'git checkpoint uninstall codex --mcp' removes this block.\n" +
		"[mcp_servers." + MCPServer + "]\n" +
		"command = \"" + mcpCommand + "\"\n" +
		"args = [\"mcp\"]\n" +
		mcpBlockEnd + "\n"
)

// installMCPTOML adds or upgrades the block in config.toml, unless the
// user has a server of that name there already.
func installMCPTOML(env Env, path string) (File, []string, error) {
	src, err := readFile(path)
	if err != nil {
		return File{}, nil, err
	}
	text := string(src)
	var notes []string
	if start, end, ok := findMCPBlock(text); ok {
		text = text[:start] + mcpBlock + text[end:]
	} else if userMCPTable(text) {
		notes = append(notes, fmt.Sprintf("%s already registers a server named %s: left as it is", path, MCPServer))
	} else if _, _, _, found, err := rootKey(text, "mcp_servers"); err != nil || found {
		if err == nil {
			err = fmt.Errorf("mcp_servers is set in its root table, where a table of it cannot be added")
		}
		return File{}, nil, fault.New(fault.InvalidSettings, "cannot register the server in %s: %v", path, err).
			WithHint("fix the file, or register the server by hand ('git checkpoint install codex --mcp --print' shows the table)")
	} else {
		if text != "" && !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		text += mcpBlock
	}
	dirs := missingDirs(path)
	f, err := writeIfChanged(path, src, []byte(text))
	if err == nil && f.Action != "unchanged" {
		rememberInstall(env, path, partMCP, src, []byte(text), dirs)
	}
	return f, notes, err
}

// findMCPBlock locates git-checkpoint's block: from its first line to the
// end of its last.
func findMCPBlock(src string) (start, end int, found bool) {
	i := strings.Index(src, "# >>> git-checkpoint mcp ")
	if i < 0 || (i > 0 && src[i-1] != '\n') {
		return 0, 0, false
	}
	j := strings.Index(src[i:], mcpBlockEnd)
	if j < 0 {
		return 0, 0, false
	}
	return i, lineEnd(src, i+j), true
}

// removeMCPBlock takes the block out of src.
func removeMCPBlock(src string) string {
	if start, end, ok := findMCPBlock(src); ok {
		return src[:start] + src[end:]
	}
	return src
}

// userMCPTable reports whether src, outside git-checkpoint's block, has
// a table for a server of git-checkpoint's name.
func userMCPTable(src string) bool {
	for _, line := range strings.Split(src, "\n") {
		l := strings.ReplaceAll(strings.TrimSpace(line), " ", "")
		if strings.HasPrefix(l, "[mcp_servers."+MCPServer+"]") || strings.HasPrefix(l, `[mcp_servers."`+MCPServer+`"]`) ||
			strings.HasPrefix(l, "[mcp_servers.'"+MCPServer+"']") {
			return true
		}
	}
	return false
}

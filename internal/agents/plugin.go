package agents

import (
	"bytes"
	"cmp"
	"io/fs"
	"os"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
)

// pluginFile is a config: a whole file of git-checkpoint's own in an
// agent's plugin directory, for an agent whose hooks are modules it loads
// from there rather than commands in a settings file (OpenCode). The file
// is known as git-checkpoint's by its first line, which names the hook
// command; a file of that name without it is the user's and is never
// touched.
type pluginFile struct {
	name  string // of the file, the snippet and its copy in hooks/<agent>/
	where string // where the file goes, as a person reads it
	// path is the file for scope; for the tree's scopes, env.Top is set.
	path func(scope string, env Env) string
	text func() string
	// mode is the new file's; 0 is 0o644. An executable (Cline's hooks)
	// is 0o755.
	mode fs.FileMode
}

func (p pluginFile) file(scope string, env Env) (string, error) {
	return placed(scope, env, "installs into one", p.path(scope, env))
}

// ourPlugin reports whether src is a plugin git-checkpoint wrote for
// agent, in this or an older version: its first line names the hook, or
// its second after a #! line (a script).
func ourPlugin(src []byte, agent string) bool {
	first, rest, _ := bytes.Cut(src, []byte("\n"))
	if bytes.HasPrefix(first, []byte("#!")) {
		first, _, _ = bytes.Cut(rest, []byte("\n"))
	}
	return callsHook(string(first), agent)
}

func (p pluginFile) install(a Agent, scope string, env Env) ([]File, []string, error) {
	path, err := p.file(scope, env)
	if err != nil {
		return nil, nil, err
	}
	src, err := readFile(path)
	if err != nil {
		return nil, nil, err
	}
	if src != nil && !ourPlugin(src, a.Name) {
		return nil, nil, fault.New(fault.ConflictPluginExists, "%s exists and is not git-checkpoint's", path).
			WithHint("rename it (its plugin still loads under another name), then install again")
	}
	dirs := missingDirs(path) // the directories this install creates
	f, err := writeModeIfChanged(path, src, []byte(p.text()), cmp.Or(p.mode, 0o644))
	if err == nil && src == nil {
		rememberInstall(env, path, partHooks, nil, []byte(p.text()), dirs)
	}
	if err != nil {
		return nil, nil, err
	}
	return []File{f}, nil, nil
}

// uninstall removes the plugin, and the directories its install created
// when nothing else came to live in them. A file of the user's is left
// as it is.
func (p pluginFile) uninstall(a Agent, scope string, env Env) ([]File, error) {
	path, err := p.file(scope, env)
	if err != nil {
		return nil, err
	}
	src, err := readFile(path)
	if err != nil || src == nil {
		return []File{{Path: path, Action: "absent"}}, err
	}
	if !ourPlugin(src, a.Name) {
		return []File{{Path: path, Action: "unchanged"}}, nil
	}
	rec := loadUndo(env, path, partHooks)
	if err := os.Remove(path); err != nil {
		return nil, fault.Wrap(err, fault.FailedIO, "cannot remove %s", path)
	}
	if rec != nil {
		for _, d := range rec.Dirs {
			os.Remove(d) // only when empty
		}
	}
	forgetInstall(env, path, partHooks)
	return []File{{Path: path, Action: "removed"}}, nil
}

func (p pluginFile) snippet(Agent) Snippet { return Snippet{p.name, p.where, p.text()} }

// hooksAt is the file holding the agent's hooks for scope.
func (p pluginFile) hooksAt(scope string, env Env) string { return p.path(scope, env) }

package agents

import (
	"os"
	"slices"
	"strings"
)

// TreeSettings are the agents' settings files and plugins inside a working tree that
// install can write, relative to its top: the places a rewind must not
// switch the product off (see HoldsHooks). Status and doctor find the
// installed ones with Hooks.
func TreeSettings() []string {
	var files []string
	env := Env{Top: "/", Getenv: func(string) string { return "" }}
	for _, a := range registry {
		for _, f := range hookFiles(a) {
			for _, scope := range a.Scopes {
				if scope == ScopeUser {
					continue
				}
				rel := strings.TrimPrefix(f.hooksAt(scope, env), "/")
				if !slices.Contains(files, rel) {
					files = append(files, rel)
				}
			}
		}
	}
	return files
}

// hookFile is a config that is one file holding the agent's hooks for
// a scope: a settings file, or a plugin.
type hookFile interface {
	hooksAt(scope string, env Env) string
}

// hookFiles are the agent's configs that are settings files or plugins:
// the files holding hooks that a working tree or the user's scope can
// have. The others are not settings a rewind could switch off: Codex's
// notify is in the user's config.toml, git's post-commit in the hooks
// directory.
func hookFiles(a Agent) []hookFile {
	var out []hookFile
	for _, c := range a.configs {
		if f, ok := c.(hookFile); ok {
			out = append(out, f)
		}
	}
	return out
}

// HoldsHooks reports whether text, a settings file, calls git-checkpoint's
// hook for any agent.
func HoldsHooks(text []byte) bool { return callsHook(string(text), "") }

// HoldsHooksFile is HoldsHooks of the file at path; false when it cannot
// be read.
func HoldsHooksFile(path string) bool {
	b, err := os.ReadFile(path)
	return err == nil && HoldsHooks(b)
}

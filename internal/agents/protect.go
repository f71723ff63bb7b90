package agents

import (
	"os"
	"slices"
	"strings"
)

// TreeSettings are the agents' settings files inside a working tree that
// install can write, relative to its top: the places a rewind must not
// switch the product off (see HoldsHooks), and where status and doctor
// look for installed hooks.
func TreeSettings() []string {
	var files []string
	env := Env{Top: "/", Getenv: func(string) string { return "" }}
	for _, agent := range []string{Claude, Codex, Gemini} {
		for _, scope := range []string{ScopeLocal, ScopeProject} {
			p, _ := settingsPath(agent, scope, env)
			rel := strings.TrimPrefix(p, "/")
			if !slices.Contains(files, rel) {
				files = append(files, rel)
			}
		}
	}
	return files
}

// UserSettings are the agents' settings files of the user's scope.
func UserSettings(home string, getenv func(string) string) []string {
	env := Env{Home: home, Getenv: getenv}
	var files []string
	for _, agent := range []string{Claude, Codex, Gemini} {
		p, _ := settingsPath(agent, ScopeUser, env)
		files = append(files, p)
	}
	return files
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

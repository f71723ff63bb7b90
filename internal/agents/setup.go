package agents

import (
	"fmt"
	"slices"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
)

// config is one file that makes an agent call `git checkpoint hook`:
// install merges git-checkpoint's part into it, uninstall takes exactly
// that part out, and snippet is the whole file for a setup by hand.
type config interface {
	install(a Agent, scope string, env Env) ([]File, []string, error)
	uninstall(a Agent, scope string, env Env) ([]File, error)
	snippet(a Agent) Snippet
}

// Install writes the hook configuration of agent for scope, merging it
// into what is there (DESIGN section 7). It is idempotent: a second run
// changes no byte.
func Install(agent, scope string, env Env) (*Result, error) {
	a, err := lookupScope(agent, scope)
	if err != nil {
		return nil, err
	}
	res := &Result{}
	for _, c := range a.configs {
		files, notes, err := c.install(a, scope, env)
		if err != nil {
			return nil, err
		}
		res.Files = append(res.Files, files...)
		res.Notes = append(res.Notes, notes...)
	}
	if a.installNotes != nil {
		res.Notes = append(res.Notes, a.installNotes(scope)...)
	}
	return res, nil
}

// Uninstall removes exactly what Install added.
func Uninstall(agent, scope string, env Env) (*Result, error) {
	a, err := lookupScope(agent, scope)
	if err != nil {
		return nil, err
	}
	// Last installed, first removed: the directories the first file's
	// install made (Cline's .clinerules/hooks) are empty only once the
	// files written after it are gone. Files are reported in install's
	// order all the same.
	res := &Result{}
	for i := len(a.configs) - 1; i >= 0; i-- {
		files, err := a.configs[i].uninstall(a, scope, env)
		if err != nil {
			return nil, err
		}
		res.Files = append(files, res.Files...)
	}
	return res, nil
}

// lookupScope returns the agent called name, refusing a scope it has no
// place for.
func lookupScope(name, scope string) (Agent, error) {
	a, ok := Lookup(name)
	if !ok {
		return a, unknownAgent(name)
	}
	if !slices.Contains(a.Scopes, scope) {
		return a, fault.New(fault.InvalidUsage, "%s has no %s scope", name, scope).
			WithHint(fmt.Sprintf("'git checkpoint install %s' installs into this repository", name))
	}
	return a, nil
}

// Snippet is a file for setting an agent up by hand: what install writes
// where there was nothing. The same files are in hooks/<agent>/.
type Snippet struct {
	Name    string `json:"name"`
	Where   string `json:"where"`
	Content string `json:"content"`
}

// Snippets returns agent's manual setup files.
func Snippets(agent string) ([]Snippet, error) {
	a, ok := Lookup(agent)
	if !ok {
		return nil, unknownAgent(agent)
	}
	var out []Snippet
	for _, c := range a.configs {
		out = append(out, c.snippet(a))
	}
	return out, nil
}

func unknownAgent(agent string) error {
	return fault.New(fault.InvalidUsage, "no agent %q", agent).
		WithHint(fmt.Sprintf("agents are %v; any other program: git checkpoint run -- CMD", Names()))
}

package agents

import (
	"fmt"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
)

// Install writes the hook configuration of agent for scope, merging it
// into what is there (DESIGN section 7). It is idempotent: a second run
// changes no byte.
func Install(agent, scope string, env Env) (*Result, error) {
	res := &Result{}
	switch agent {
	case Claude, Codex, Gemini:
		path, err := settingsPath(agent, scope, env)
		if err != nil {
			return nil, err
		}
		f, err := installSettings(env, path, settingsOf(agent))
		if err != nil {
			return nil, err
		}
		res.Files = append(res.Files, f)
		switch {
		case agent == Claude && scope != ScopeUser:
			res.Notes = append(res.Notes, "Claude Code reads project settings in the directory it starts in: start it at the top of the working tree")
		case agent == Gemini && scope != ScopeUser:
			res.Notes = append(res.Notes, "Gemini CLI reads .gemini/settings.json only in a folder it trusts")
		case agent == Codex:
			f, notes, err := installCodexNotify(env)
			if err != nil {
				return nil, err
			}
			res.Files = append(res.Files, f)
			res.Notes = append(res.Notes, notes...)
			res.Notes = append(res.Notes, codexTrust)
		}
	case Aider:
		if scope == ScopeUser {
			return nil, errScope(agent, scope)
		}
		if env.HooksDir == "" {
			return nil, notInRepo(agent)
		}
		files, notes, err := installGithook(env.HooksDir)
		if err != nil {
			return nil, err
		}
		res.Files, res.Notes = files, notes
	default:
		return nil, unknownAgent(agent)
	}
	return res, nil
}

// codexTrust is how Codex's hooks come to run: it skips them, silently,
// until a person has trusted them. git-checkpoint does not trust its own
// hooks on the user's behalf.
const codexTrust = "Codex runs hooks only once they are trusted: start 'codex' in this directory, " +
	"trust the project, and approve the new hooks when it asks (or with /hooks). " +
	"'codex exec' cannot ask: approve them interactively once, or pass --dangerously-bypass-hook-trust. " +
	"Until then notify (which needs no trust) still checkpoints the end of each turn"

// Uninstall removes exactly what Install added.
func Uninstall(agent, scope string, env Env) (*Result, error) {
	res := &Result{}
	switch agent {
	case Claude, Codex, Gemini:
		path, err := settingsPath(agent, scope, env)
		if err != nil {
			return nil, err
		}
		f, err := uninstallSettings(env, path, settingsOf(agent))
		if err != nil {
			return nil, err
		}
		res.Files = append(res.Files, f)
		if agent == Codex {
			f, err := uninstallCodexNotify(env)
			if err != nil {
				return nil, err
			}
			res.Files = append(res.Files, f)
		}
	case Aider:
		if scope == ScopeUser {
			return nil, errScope(agent, scope)
		}
		if env.HooksDir == "" {
			return nil, notInRepo(agent)
		}
		files, err := uninstallGithook(env.HooksDir)
		if err != nil {
			return nil, err
		}
		res.Files = files
	default:
		return nil, unknownAgent(agent)
	}
	return res, nil
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
	switch agent {
	case Claude:
		return []Snippet{{"settings.json", ".claude/settings.local.json, .claude/settings.json or ~/.claude/settings.json",
			string(settingsOf(Claude).snippet())}}, nil
	case Codex:
		return []Snippet{
			{"hooks.json", ".codex/hooks.json or ~/.codex/hooks.json", string(settingsOf(Codex).snippet())},
			{"config.toml", "the top of ~/.codex/config.toml ($CODEX_HOME/config.toml)", notifyBlock("", nil)},
		}, nil
	case Gemini:
		return []Snippet{{"settings.json", ".gemini/settings.json or ~/.gemini/settings.json",
			string(settingsOf(Gemini).snippet())}}, nil
	case Aider:
		return []Snippet{{"post-commit", "the repository's hooks directory ($(git rev-parse --git-path hooks)/post-commit), executable",
			freshHook()}}, nil
	}
	return nil, unknownAgent(agent)
}

func unknownAgent(agent string) error {
	return fault.New("invalid.usage", "no agent %q", agent).
		WithHint(fmt.Sprintf("agents are %v; any other program: git checkpoint run -- CMD", Names()))
}

func notInRepo(agent string) error {
	return fault.New("unsupported.no_repository", "not in a git repository: %s's hook is a git hook of one", agent).
		WithHint("run it inside the repository")
}

package agents

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// Codex is the Codex CLI.
const Codex = "codex"

// codex's hooks share Claude Code's names and shapes; shell commands come
// as tool "Bash" and edits as "apply_patch", whose input is the patch.
// Its hooks run only once a person has trusted them, so install also sets
// notify, which needs no trust and ends a turn as Stop does (codexNotify).
var codex = Agent{
	Name: Codex,
	Events: []HookEvent{
		{Name: "UserPromptSubmit", Reason: store.ReasonTurnStart, Hooked: true, Note: true},
		{Name: "PostToolUse", Reason: store.ReasonTool, Hooked: true},
		{Name: "Stop", Reason: store.ReasonTurnEnd, Hooked: true},
		{Name: "PostToolUseFailure", Reason: store.ReasonTool},
		{Name: "SessionStart"}, {Name: "PreToolUse"}, {Name: "SessionEnd"},
	},
	Scopes:    []string{ScopeLocal, ScopeProject, ScopeUser},
	onArgs:    func(args []string) bool { return len(args) > 0 && args[0] == "notify" },
	argsEvent: func(args []string) (*Event, error) { return codexNotify(args[1:]) },
	configs: []config{
		settingsFile{
			name:    "hooks.json",
			where:   ".codex/hooks.json or ~/.codex/hooks.json",
			path:    codexHooks,
			timeout: HookTimeout,
		},
		notifyConfig{},
	},
	installNotes: func(string) []string { return []string{codexTrust} },
	mcp: &mcpPlace{
		where: "the end of ~/.codex/config.toml ($CODEX_HOME/config.toml)",
		file:  func(_ string, env Env) string { return codexConfig(env) },
		toml:  true,
		notes: func(scope string) []string {
			if scope == ScopeUser {
				return nil
			}
			return []string{"Codex reads MCP servers from $CODEX_HOME/config.toml only: the server is there for every project, and serves the one Codex runs in"}
		},
	},
	resume: codexResume,
}

// codexHooks is Codex's hooks file: one for the tree (local and project
// are the same file) and one for the user.
func codexHooks(scope string, env Env) string {
	if scope == ScopeUser {
		return filepath.Join(codexHome(env), "hooks.json")
	}
	return filepath.Join(env.Top, ".codex", "hooks.json")
}

// codexHome is $CODEX_HOME, or ~/.codex.
func codexHome(env Env) string {
	if d := env.Getenv("CODEX_HOME"); d != "" {
		return d
	}
	return filepath.Join(env.Home, ".codex")
}

// codexTrust is how Codex's hooks come to run: it skips them, silently,
// until a person has trusted them. git-checkpoint does not trust its own
// hooks on the user's behalf.
const codexTrust = "Codex runs hooks only once they are trusted: start 'codex' in this directory, " +
	"trust the project, and approve the new hooks when it asks (or with /hooks). " +
	"'codex exec' cannot ask: approve them interactively once, or pass --dangerously-bypass-hook-trust. " +
	"Until then notify (which needs no trust) still checkpoints the end of each turn"

// codexResume forks the whole session (`codex fork S`), which is faithful
// only when no later turn of that session started.
func codexResume(recs store.Records, end int) *Resume {
	if startedAfter(recs, end) {
		return nil
	}
	return &Resume{Agent: Codex, Command: "codex fork " + shellWord(recs.Session(end))}
}

// codexNotify reads Codex's notify call: the JSON is the last argument
// (earlier ones, if any, belong to a notify program chained after ours).
func codexNotify(args []string) (*Event, error) {
	if len(args) == 0 {
		return nil, errors.New("notify without its JSON argument")
	}
	arg := args[len(args)-1]
	if len(arg) > MaxInput {
		return nil, fmt.Errorf("the notify argument is over %d bytes", MaxInput)
	}
	var n struct {
		Type     string `json:"type"`
		ThreadID string `json:"thread-id"`
		Cwd      string `json:"cwd"`
		// The person's messages of the turn: its prompt, when no
		// UserPromptSubmit hook recorded it at the start.
		Input []string `json:"input-messages"`
	}
	if err := json.Unmarshal([]byte(arg), &n); err != nil {
		return nil, fmt.Errorf("the notify argument is not JSON: %v", err)
	}
	ev := &Event{Agent: Codex, Name: n.Type, Session: n.ThreadID, Cwd: n.Cwd, Prompt: strings.Join(n.Input, "\n")}
	if n.Type != "agent-turn-complete" {
		return nil, fmt.Errorf("%w: notify type %q", ErrUnknown, n.Type)
	}
	ev.Reason = store.ReasonTurnEnd
	return ev, nil
}

// patchPaths lists the files an apply_patch patch adds, updates, deletes
// or moves to, relative to the working directory.
func patchPaths(patch string) []string {
	var out []string
	for _, line := range strings.Split(patch, "\n") {
		line = strings.TrimRight(line, "\r")
		for _, h := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
			if name, ok := strings.CutPrefix(line, h); ok {
				out = appendNonEmpty(out, strings.TrimSpace(name))
			}
		}
	}
	return out
}

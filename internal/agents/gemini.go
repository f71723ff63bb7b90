package agents

import (
	"path/filepath"

	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// Gemini is the Gemini CLI.
const Gemini = "gemini"

// gemini reads a hook's stdout as JSON: BeforeAgent may answer with
// additionalContext, which is how a pending note reaches its model. It
// counts hook timeouts in milliseconds. It resumes a session only by
// appending to it, which would change the original conversation, so no
// resume is offered. It runs an identical hook command once, from its
// settings or its extension (TestAgents/gemini-extension).
var gemini = Agent{
	Name:      Gemini,
	hooksOnce: true,
	Events: []HookEvent{
		{Name: "BeforeAgent", Reason: store.ReasonTurnStart, Hooked: true, Note: true},
		{Name: "AfterTool", Reason: store.ReasonTool, Hooked: true},
		{Name: "AfterAgent", Reason: store.ReasonTurnEnd, Hooked: true},
		{Name: "SessionStart"}, {Name: "SessionEnd"}, {Name: "BeforeTool"}, {Name: "BeforeModel"},
		{Name: "AfterModel"}, {Name: "BeforeToolSelection"}, {Name: "PreCompress"}, {Name: "Notification"},
	},
	ProjectDirEnv: "GEMINI_PROJECT_DIR",
	Scopes:        []string{ScopeLocal, ScopeProject, ScopeUser},
	configs: []config{settingsFile{
		name:    "settings.json",
		where:   ".gemini/settings.json or ~/.gemini/settings.json",
		path:    geminiSettings,
		timeout: HookTimeout * 1000,
	}},
	installNotes: func(scope string) []string {
		if scope == ScopeUser {
			return nil
		}
		return []string{"Gemini CLI reads .gemini/settings.json only in a folder it trusts"}
	},
	mcp: &mcpPlace{
		where: ".gemini/settings.json or ~/.gemini/settings.json",
		file:  geminiSettings,
		keys:  func(string, Env) []string { return []string{"mcpServers"} },
		entry: `{"command":"git-checkpoint","args":["mcp"]}`,
		notes: func(scope string) []string {
			if scope == ScopeUser {
				return nil
			}
			return []string{"Gemini CLI reads .gemini/settings.json only in a folder it trusts"}
		},
	},
}

// geminiSettings is Gemini CLI's settings file: one for the tree (local
// and project are the same file) and one for the user.
func geminiSettings(scope string, env Env) string {
	if scope == ScopeUser {
		return filepath.Join(env.Home, ".gemini", "settings.json")
	}
	return filepath.Join(env.Top, ".gemini", "settings.json")
}

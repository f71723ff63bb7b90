package e2e

import (
	"encoding/json"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/agenttest"
)

// geminiStory: Gemini CLI 0.61, with the hooks `git checkpoint install
// gemini` writes into .gemini/settings.json. Gemini CLI reads that file
// only in a folder it trusts; the harness trusts the workspace with
// GEMINI_CLI_TRUST_WORKSPACE=true. It resumes a session (--resume latest)
// only by adding to it.
func geminiStory(t *testing.T, tools string) {
	hookedStory(t, tools, hookedAgent{
		name: "gemini",
		install: "created   .gemini/settings.json\n" +
			"note: Gemini CLI reads .gemini/settings.json only in a folder it trusts\n",
		server: agenttest.NewGeminiServer, run: agenttest.RunGemini, session: geminiSession,
		resume: func(string) []string { return []string{"--resume", "latest"} },
		write:  agenttest.GeminiWriteFile, shell: agenttest.GeminiShell, writeTool: "write_file", shellTool: "run_shell_command",
	})
}

// geminiSession returns the session id Gemini CLI reports in its JSON
// output.
func geminiSession(t *testing.T, res *agenttest.Result) string {
	t.Helper()
	var out struct {
		SessionID string `json:"session_id"`
	}
	if json.Unmarshal([]byte(res.Stdout), &out) != nil || out.SessionID == "" {
		t.Fatalf("no session id in Gemini CLI's output:\n%s", res)
	}
	return out.SessionID
}

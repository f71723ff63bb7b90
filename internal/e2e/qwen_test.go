package e2e

import (
	"encoding/json"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/agenttest"
)

// qwenSettings is a project's .qwen/settings.json before install: the
// person's own settings, with a comment (Qwen Code reads JSON with
// comments), which install and uninstall keep byte for byte. Qwen Code
// itself adds "$version": 4 to a settings file that lacks it, the first
// time it runs: this one has it, as every file Qwen Code has read does.
const qwenSettings = `{
  "$version": 4,
  // the team's model
  "model": {"name": "qwen3-coder-plus"},
  "hooks": {
    "Stop": [{"hooks": [{"type": "command", "command": "true"}]}]
  }
}
`

// qwenStory: Qwen Code 0.24, with the hooks `git checkpoint install qwen`
// merges into .qwen/settings.json, run headless against a fake OpenAI
// Chat Completions server. Qwen Code sends UserPromptSubmit before every
// model request of a turn (with an empty prompt after the first): the
// journal shows one turn start a prompt all the same. --resume adds to
// the session.
func qwenStory(t *testing.T, tools string) {
	hookedStory(t, tools, hookedAgent{
		name:    "qwen",
		install: "updated   .qwen/settings.json\n",
		server:  agenttest.NewChatServer, run: agenttest.RunQwen, session: qwenSession,
		resume: func(s string) []string { return []string{"--resume", s} },
		write:  agenttest.QwenWriteFile, shell: agenttest.QwenShell, writeTool: "write_file", shellTool: "run_shell_command",
		settings: ".qwen/settings.json", settingsText: qwenSettings,
	})
}

// qwenSession returns the session id of Qwen Code's JSON output, an array
// of messages.
func qwenSession(t *testing.T, res *agenttest.Result) string {
	t.Helper()
	var out []struct {
		SessionID string `json:"session_id"`
	}
	if json.Unmarshal([]byte(res.Stdout), &out) != nil || len(out) == 0 || out[0].SessionID == "" {
		t.Fatalf("no session id in Qwen Code's output:\n%s", res)
	}
	return out[0].SessionID
}

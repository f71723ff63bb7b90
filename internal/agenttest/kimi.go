package agenttest

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// RunKimi runs Kimi Code (kimi -p, prompt mode, stream-json output) for
// one prompt against the fake Chat Completions server at run.URL and
// returns when it exits. Kimi Code needs Node.js 22 or later: the pinned
// one (NodePath) comes first on PATH.
//
// The model comes from the environment (KIMI_MODEL_NAME and its
// siblings, a provider of the "openai" kind whose base URL is run.URL/v1),
// so the configuration file needs nothing of the harness's: Kimi Code
// reads hooks only from the user's ~/.kimi-code/config.toml, and a run
// after `git checkpoint install kimi` must find that file as install left
// it. run.Config, then run.Hooks (TOML: top-level keys, then [[hooks]]
// tables, as KimiHooks writes them), replace that file when either is
// set; otherwise it is left alone. run.Scope is ignored. Continue a
// session with the same Home and Args such as --session ID.
func RunKimi(t testing.TB, run Run) *Result {
	t.Helper()
	bin := Binary(t, "kimi")
	prepareHome(t, &run)
	if run.Config != "" || run.Hooks != "" {
		writeFile(t, filepath.Join(run.Home, ".kimi-code", "config.toml"), run.Config+"\n"+run.Hooks)
	}
	env := kimiEnv(t, run)
	nodeFirst(t, &run)
	args := append([]string{"--output-format", "stream-json"}, run.Args...)
	args = append(args, "-p", run.Prompt)
	return start(t, run, launch{bin: bin, args: args, env: env})
}

// kimiEnv is Kimi Code's environment for run: the model from the fake at
// run.URL.
func kimiEnv(t testing.TB, run Run) []string {
	return append(baseEnv(t, run.Home),
		"KIMI_MODEL_PROVIDER_TYPE=openai",
		"KIMI_MODEL_BASE_URL="+run.URL+"/v1",
		"KIMI_MODEL_API_KEY=fake-key",
		"KIMI_MODEL_NAME="+KimiModel,
		// No telemetry or update checks, which would reach Moonshot's
		// servers.
		"KIMI_DISABLE_TELEMETRY=1", "KIMI_CODE_NO_AUTO_UPDATE=1",
	)
}

// KimiModel is the model Kimi Code asks the fake for.
const KimiModel = "fake-model"

// KimiHooks returns Kimi Code's hook configuration running command on
// each of the events, for every tool: one [[hooks]] table each.
func KimiHooks(command string, events ...string) string {
	var b strings.Builder
	for _, e := range events {
		b.WriteString("[[hooks]]\nevent = " + strconv.Quote(e) + "\ncommand = " + strconv.Quote(command) + "\n\n")
	}
	return b.String()
}

// KimiSession returns the session id Kimi Code's stream-json output names
// in its resume hint, or "".
func KimiSession(stdout string) string {
	for _, line := range strings.Split(stdout, "\n") {
		var m struct {
			Type      string `json:"type"`
			SessionID string `json:"session_id"`
		}
		if json.Unmarshal([]byte(line), &m) == nil && m.Type == "session.resume_hint" {
			return m.SessionID
		}
	}
	return ""
}

// KimiWrite is Kimi Code's Write call.
func KimiWrite(path, content string) Call {
	return Call{Name: "Write", Args: map[string]any{"path": path, "content": content}}
}

// KimiEdit is Kimi Code's Edit call.
func KimiEdit(path, old, new string) Call {
	return Call{Name: "Edit", Args: map[string]any{"path": path, "old_string": old, "new_string": new}}
}

// KimiBash is Kimi Code's Bash call.
func KimiBash(command string) Call {
	return Call{Name: "Bash", Args: map[string]any{"command": command}}
}

// KimiAgent is Kimi Code's Agent call, which starts a coder subagent with
// prompt. Put a key in prompt and the subagent's steps under that key in
// Script.Sub.
func KimiAgent(prompt string) Call {
	return Call{Name: "Agent", Args: map[string]any{"description": "scripted subtask", "prompt": prompt,
		"subagent_type": "coder"}}
}

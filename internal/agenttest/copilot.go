package agenttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// RunCopilot runs GitHub Copilot CLI headless (-p, --allow-all) for one
// prompt against the fake server at run.URL and returns when it exits.
//
// Copilot CLI talks to a model of the user's own ("bring your own key")
// when COPILOT_PROVIDER_BASE_URL is set, and then needs no GitHub
// account; COPILOT_OFFLINE turns off everything else that would leave the
// machine (sign-in, telemetry, updates, the GitHub MCP server). The
// provider is the Anthropic Messages API, so the fake is NewClaudeServer.
//
// Copilot loads a repository's hooks only in a folder the person has
// trusted; the run records run.Dir as trusted in ~/.copilot/config.json,
// as the trust dialog does. Hooks go to run.Dir/.github/hooks/hooks.json
// (ProjectScope) or ~/.copilot/hooks/hooks.json (UserScope), in the
// shape CopilotHookConfig writes. run.Config is a JSON object merged into
// ~/.copilot/settings.json.
func RunCopilot(t testing.TB, run Run) *Result {
	t.Helper()
	bin := Binary(t, "copilot")
	prepareHome(t, &run)
	dir := filepath.Join(run.Home, ".copilot")
	// Copilot rewrites config.json itself; a resumed run keeps its own.
	if _, err := os.Stat(filepath.Join(dir, "config.json")); err != nil {
		writeFile(t, filepath.Join(dir, "config.json"), `{"trustedFolders": [`+mustJSON(run.Dir)+`]}`+"\n")
	}
	if run.Config != "" {
		writeFile(t, filepath.Join(dir, "settings.json"), run.Config)
	}
	if run.Hooks != "" {
		if run.Scope == UserScope {
			writeFile(t, filepath.Join(dir, "hooks", "hooks.json"), run.Hooks)
		} else {
			writeFile(t, filepath.Join(run.Dir, ".github", "hooks", "hooks.json"), run.Hooks)
		}
	}
	env := append(baseEnv(t, run.Home),
		"COPILOT_PROVIDER_TYPE=anthropic",
		"COPILOT_PROVIDER_BASE_URL="+run.URL,
		"COPILOT_PROVIDER_API_KEY=fake-key",
		"COPILOT_MODEL="+CopilotModel,
		"COPILOT_OFFLINE=true",
		"COPILOT_AUTO_UPDATE=false",
	)
	args := append([]string{"-p", run.Prompt, "--allow-all", "--no-ask-user",
		"--no-auto-update", "--disable-client-telemetry", "--output-format", "json"}, run.Args...)
	return start(t, run, launch{bin: bin, args: args, env: env})
}

// CopilotHookConfig returns a Copilot CLI hook file that runs command on
// each of the events, for every tool: {"version": 1, "hooks": {EVENT:
// [{"type": "command", "bash": ...}]}}, Copilot's flat entries. Under
// PascalCase event names Copilot sends payloads shaped like Claude
// Code's, which ReadHookLog reads; under its camelCase ones they do not
// name their event.
func CopilotHookConfig(command string, events ...string) string {
	hooks := map[string]any{}
	for _, e := range events {
		hooks[e] = []any{map[string]any{"type": "command", "bash": command}}
	}
	b, _ := json.MarshalIndent(map[string]any{"version": 1, "hooks": hooks}, "", "  ")
	return string(b) + "\n"
}

// CopilotModel is the model Copilot CLI is configured with: one it knows,
// so it offers that model's tool set and token limits; the fake server
// answers whatever the name.
const CopilotModel = "claude-sonnet-4.6"

// CopilotCreate is Copilot CLI's create call, which writes a new file.
func CopilotCreate(path, content string) Call {
	return Call{Name: "create", Args: map[string]any{"path": path, "file_text": content}}
}

// CopilotBash is Copilot CLI's bash call.
func CopilotBash(command string) Call {
	return Call{Name: "bash", Args: map[string]any{"command": command, "description": "scripted command"}}
}

// CopilotTask is Copilot CLI's task call, which runs a general-purpose
// subagent with prompt and waits for it. Put a key in prompt and the
// subagent's steps under that key in Script.Sub.
func CopilotTask(description, prompt string) Call {
	return Call{Name: "task", Args: map[string]any{"description": description, "prompt": prompt,
		"agent_type": "general-purpose", "name": "helper"}}
}

package agenttest

import (
	"fmt"
	"path/filepath"
	"strconv"
	"testing"
)

// RunOpenCode runs OpenCode headless (opencode run --format json) for one
// prompt against the fake Chat Completions server at run.URL and returns
// when it exits.
//
// The user configuration (~/.config/opencode/opencode.json) declares a
// provider "fake" of the bundled openai-compatible kind whose baseURL is
// run.URL/v1, with one model, OpenCodeModel, and allows every tool
// without asking; run.Config is a JSON object merged into it. OpenCode's
// hooks are plugins, JavaScript modules it loads from a directory rather
// than commands in a settings file: run.Hooks is the text of one plugin,
// written to run.Dir/.opencode/plugins/ (ProjectScope) or
// ~/.config/opencode/plugins/ (UserScope). Continue a session with the
// same Home and Args such as --session ID.
func RunOpenCode(t testing.TB, run Run) *Result {
	t.Helper()
	bin := Binary(t, "opencode")
	prepareHome(t, &run)
	configDir := filepath.Join(run.Home, ".config", "opencode")
	user, err := mergeJSON(openCodeConfig(run.URL), run.Config)
	if err != nil {
		t.Fatalf("agenttest: opencode config: %v", err)
	}
	writeFile(t, filepath.Join(configDir, "opencode.json"), user)
	if run.Hooks != "" {
		dir := filepath.Join(run.Dir, ".opencode", "plugins")
		if run.Scope == UserScope {
			dir = filepath.Join(configDir, "plugins")
		}
		writeFile(t, filepath.Join(dir, OpenCodePlugin), run.Hooks)
	}
	env := append(baseEnv(t, run.Home),
		"FAKE_MODEL_API_KEY=fake-key",
		// The model list, update checks and sharing would reach
		// opencode.ai and models.dev; the provider is declared in full.
		"OPENCODE_DISABLE_MODELS_FETCH=1",
		"OPENCODE_DISABLE_AUTOUPDATE=1",
		"OPENCODE_DISABLE_SHARE=1",
		"OPENCODE_DISABLE_LSP_DOWNLOAD=1",
	)
	args := append([]string{"run", "--format", "json", "--model", "fake/" + OpenCodeModel}, run.Args...)
	args = append(args, run.Prompt)
	return start(t, run, launch{bin: bin, args: args, env: env})
}

// OpenCodeModel is the model of the fake provider.
const OpenCodeModel = "fake-model"

// OpenCodePlugin is the file name RunOpenCode gives run.Hooks.
const OpenCodePlugin = "agenttest.js"

// openCodeConfig is the user configuration every run starts from.
func openCodeConfig(url string) string {
	return fmt.Sprintf(`{
  "$schema": "https://opencode.ai/config.json",
  "autoupdate": false,
  "share": "disabled",
  "permission": {"*": "allow"},
  "provider": {
    "fake": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "fake",
      "options": {"baseURL": %s, "apiKey": "{env:FAKE_MODEL_API_KEY}"},
      "models": {%s: {"name": "fake model", "tool_call": true, "limit": {"context": 200000, "output": 8192}}}
    }
  }
}`, strconv.Quote(url+"/v1"), strconv.Quote(OpenCodeModel))
}

// OpenCodeWrite is OpenCode's write call.
func OpenCodeWrite(path, content string) Call {
	return Call{Name: "write", Args: map[string]any{"filePath": path, "content": content}}
}

// OpenCodeBash is OpenCode's bash call.
func OpenCodeBash(command string) Call {
	return Call{Name: "bash", Args: map[string]any{"command": command, "description": "scripted command"}}
}

// OpenCodeTask is OpenCode's task call, which runs a general subagent
// with prompt in a session of its own. Put a key in prompt and the
// subagent's steps under that key in Script.Sub.
func OpenCodeTask(prompt string) Call {
	return Call{Name: "task", Args: map[string]any{"description": "scripted subtask", "prompt": prompt, "subagent_type": "general"}}
}

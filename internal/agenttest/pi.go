package agenttest

import (
	"fmt"
	"path/filepath"
	"strconv"
	"testing"
)

// RunPi runs Pi (pi -p, print mode) for one prompt against the fake Chat
// Completions server at run.URL and returns when it exits. Pi needs a
// newer Node.js than the machine's: it runs with NodePath first on PATH.
//
// The user's agent directory (~/.pi/agent) declares, in models.json, a
// provider "fake" of the openai-completions kind whose baseUrl is
// run.URL/v1, with one model, PiModel, and settings.json makes it the
// default; run.Config is a JSON object merged into settings.json. Pi's
// hooks are extensions, modules it loads from a directory: run.Hooks is
// the text of one, written to run.Dir/.pi/extensions/ (ProjectScope) or
// ~/.pi/agent/extensions/ (UserScope). run.Args come before the prompt:
// more prompts, which Pi runs in order in one session, or --session ID.
func RunPi(t testing.TB, run Run) *Result {
	t.Helper()
	bin := Binary(t, "pi")
	prepareHome(t, &run)
	agentDir := filepath.Join(run.Home, ".pi", "agent")
	writeFile(t, filepath.Join(agentDir, "models.json"), piModels(run.URL))
	settings, err := mergeJSON(fmt.Sprintf(`{"defaultProvider": "fake", "defaultModel": %s}`, strconv.Quote(PiModel)), run.Config)
	if err != nil {
		t.Fatalf("agenttest: pi settings: %v", err)
	}
	writeFile(t, filepath.Join(agentDir, "settings.json"), settings)
	if run.Hooks != "" {
		dir := filepath.Join(run.Dir, ".pi", "extensions")
		if run.Scope == UserScope {
			dir = filepath.Join(agentDir, "extensions")
		}
		writeFile(t, filepath.Join(dir, PiExtension), run.Hooks)
	}
	env := append(baseEnv(t, run.Home),
		"FAKE_MODEL_API_KEY=fake-key",
		// No version check, telemetry or other startup traffic.
		"PI_OFFLINE=1", "PI_TELEMETRY=0", "PI_SKIP_VERSION_CHECK=1",
	)
	nodeFirst(t, &run)
	args := append([]string{"-p"}, run.Args...)
	args = append(args, run.Prompt)
	return start(t, run, launch{bin: bin, args: args, env: env})
}

// PiModel is the model of the fake provider.
const PiModel = "fake-model"

// PiExtension is the file name RunPi gives run.Hooks.
const PiExtension = "agenttest.ts"

// piModels is the models.json every run starts from. apiKey names the
// environment variable holding the key.
func piModels(url string) string {
	return fmt.Sprintf(`{
  "providers": {
    "fake": {
      "baseUrl": %s,
      "api": "openai-completions",
      "apiKey": "FAKE_MODEL_API_KEY",
      "compat": {"supportsDeveloperRole": false, "supportsReasoningEffort": false},
      "models": [{"id": %s, "name": "fake model", "contextWindow": 200000, "maxTokens": 8192}]
    }
  }
}
`, strconv.Quote(url+"/v1"), strconv.Quote(PiModel))
}

// PiWrite is Pi's write call.
func PiWrite(path, content string) Call {
	return Call{Name: "write", Args: map[string]any{"path": path, "content": content}}
}

// PiEdit is Pi's edit call, replacing old by new in the file at path.
func PiEdit(path, old, new string) Call {
	return Call{Name: "edit", Args: map[string]any{"path": path, "edits": []any{map[string]any{"oldText": old, "newText": new}}}}
}

// PiBash is Pi's bash call.
func PiBash(command string) Call {
	return Call{Name: "bash", Args: map[string]any{"command": command}}
}

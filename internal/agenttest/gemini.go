package agenttest

import (
	"path/filepath"
	"testing"
)

// RunGemini runs Gemini CLI headless (-p, --yolo) for one prompt against
// the fake server at run.URL and returns when it exits.
func RunGemini(t testing.TB, run Run) *Result {
	t.Helper()
	bin := Binary(t, "gemini")
	prepareHome(t, &run)
	userParts := []string{geminiSettings, run.Config}
	if run.Hooks != "" {
		if run.Scope == UserScope {
			userParts = append(userParts, run.Hooks)
		} else {
			writeFile(t, filepath.Join(run.Dir, ".gemini", "settings.json"), run.Hooks)
		}
	}
	user, err := mergeJSON(userParts...)
	if err != nil {
		t.Fatalf("agenttest: gemini settings: %v", err)
	}
	writeFile(t, filepath.Join(run.Home, ".gemini", "settings.json"), user)
	args := append([]string{"-p", run.Prompt, "--yolo", "--output-format", "json"}, run.Args...)
	return start(t, run, launch{bin: bin, args: args, env: geminiEnv(t, run)})
}

// GeminiCommand runs `gemini ARGS` (such as `extensions link PATH`) in
// run.Dir, with run.Home and the environment of RunGemini's runs, and
// returns when it exits. Nothing is written into the settings first.
func GeminiCommand(t testing.TB, run Run, args ...string) *Result {
	t.Helper()
	bin := Binary(t, "gemini")
	prepareHome(t, &run)
	return start(t, run, launch{bin: bin, args: args, env: geminiEnv(t, run)})
}

// geminiEnv is the environment of Gemini CLI's runs.
func geminiEnv(t testing.TB, run Run) []string {
	return append(baseEnv(t, run.Home),
		"GEMINI_API_KEY=fake-key",
		"GOOGLE_GEMINI_BASE_URL="+run.URL,
		"GEMINI_CLI_TRUST_WORKSPACE=true",
		"GEMINI_CLI_NO_RELAUNCH=true",
		"GEMINI_TELEMETRY_ENABLED=false",
	)
}

// geminiSettings are the user settings every run starts from. The API key
// is used only when the auth method says so; usage statistics and update
// checks would reach Google's and npm's servers.
const geminiSettings = `{
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "privacy": {"usageStatisticsEnabled": false},
  "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false}
}`

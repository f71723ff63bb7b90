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
	env := append(baseEnv(t, run.Home),
		"GEMINI_API_KEY=fake-key",
		"GOOGLE_GEMINI_BASE_URL="+run.URL,
		"GEMINI_CLI_TRUST_WORKSPACE=true",
		"GEMINI_CLI_NO_RELAUNCH=true",
		"GEMINI_TELEMETRY_ENABLED=false",
	)
	args := append([]string{"-p", run.Prompt, "--yolo", "--output-format", "json"}, run.Args...)
	return start(t, run, launch{bin: bin, args: args, env: env})
}

// geminiSettings are the user settings every run starts from. The API key
// is used only when the auth method says so; usage statistics and update
// checks would reach Google's and npm's servers.
const geminiSettings = `{
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "privacy": {"usageStatisticsEnabled": false},
  "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false}
}`

package agenttest

import (
	"fmt"
	"path/filepath"
	"strconv"
	"testing"
)

// RunCodex runs Codex CLI headless (codex exec --json) for one prompt
// against the fake server at run.URL and returns when it exits.
//
// CODEX_HOME is run.Home/.codex. Its config.toml points a provider named
// "fake" at run.URL/v1 with the Responses wire API, never asks for
// approval and runs commands without the sandbox, and marks run.Dir as a
// trusted project: Codex skips project hooks in an untrusted project. Hooks
// go to run.Dir/.codex/hooks.json (ProjectScope) or $CODEX_HOME/hooks.json
// (UserScope); Codex silently skips hooks whose trust is not recorded, so
// the run passes --dangerously-bypass-hook-trust. run.Config holds extra
// TOML, such as notify = [...]: it goes after the harness's top-level keys
// and before its tables, so it may end in tables of its own, and a whole
// config.toml as install left it (notify, then [mcp_servers.NAME]) can be
// passed as it is.
func RunCodex(t testing.TB, run Run) *Result {
	t.Helper()
	bin := Binary(t, "codex")
	prepareHome(t, &run)
	codexHome := filepath.Join(run.Home, ".codex")
	writeFile(t, filepath.Join(codexHome, "config.toml"), codexConfig(run))
	if run.Hooks != "" {
		if run.Scope == UserScope {
			writeFile(t, filepath.Join(codexHome, "hooks.json"), run.Hooks)
		} else {
			writeFile(t, filepath.Join(run.Dir, ".codex", "hooks.json"), run.Hooks)
		}
	}
	env := append(baseEnv(t, run.Home),
		"CODEX_HOME="+codexHome,
		"FAKE_MODEL_API_KEY=fake-key",
	)
	args := []string{"exec", "--json", "--skip-git-repo-check",
		"--dangerously-bypass-approvals-and-sandbox", "--dangerously-bypass-hook-trust"}
	args = append(args, run.Args...)
	args = append(args, run.Prompt)
	return start(t, run, launch{bin: bin, args: args, env: env})
}

// CodexModel is the model Codex is configured with. It is one Codex knows,
// so Codex offers that model's tool set (exec_command, and apply_patch as a
// freeform tool) and does not warn about missing model metadata; the fake
// server answers whatever the name.
const CodexModel = "gpt-5.5"

// codexConfig is config.toml for a run: top-level keys first, then the
// caller's TOML (keys, and any tables it ends with), then the harness's
// tables.
func codexConfig(run Run) string {
	return fmt.Sprintf(`model = %s
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "danger-full-access"
# Nothing but the model calls: no update check, analytics, feedback
# uploads, or plugin and app catalogs (fetched from OpenAI and GitHub).
check_for_update_on_startup = false
%s

[analytics]
enabled = false

[feedback]
enabled = false

[features]
plugins = false
apps = false

[model_providers.fake]
name = "fake"
base_url = %s
wire_api = "responses"
env_key = "FAKE_MODEL_API_KEY"
# A failed request is a failed test; retrying only hides it and costs time.
request_max_retries = 0
stream_max_retries = 0

[projects.%s]
trust_level = "trusted"
`, strconv.Quote(CodexModel), run.Config, strconv.Quote(run.URL+"/v1"), strconv.Quote(run.Dir))
}

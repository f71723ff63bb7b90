package agenttest

import (
	"path/filepath"
	"testing"
)

// RunClaude runs Claude Code headless for one prompt (-p) against the fake
// server at run.URL and returns when it exits.
//
// Hooks go to .claude/settings.local.json in run.Dir (ProjectScope; Claude
// reads project settings from the directory it starts in, not the git root)
// or ~/.claude/settings.json (UserScope). Output is --output-format
// stream-json, one JSON event a line. Resume a session by passing the same
// Home and Args such as --resume ID.
func RunClaude(t testing.TB, run Run) *Result {
	t.Helper()
	bin := Binary(t, "claude")
	prepareHome(t, &run)
	user := run.Config
	if run.Hooks != "" {
		if run.Scope == UserScope {
			merged, err := mergeJSON(run.Config, run.Hooks)
			if err != nil {
				t.Fatalf("agenttest: claude settings: %v", err)
			}
			user = merged
		} else {
			writeFile(t, filepath.Join(run.Dir, ".claude", "settings.local.json"), run.Hooks)
		}
	}
	if user != "" {
		writeFile(t, filepath.Join(run.Home, ".claude", "settings.json"), user)
	}
	env := append(baseEnv(t, run.Home),
		"ANTHROPIC_BASE_URL="+run.URL,
		"ANTHROPIC_API_KEY=fake-key",
		// No telemetry, update checks, error reports or other calls that
		// would leave the machine; only the model calls remain.
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_ERROR_REPORTING=1",
		// --dangerously-skip-permissions refuses to run as root unless the
		// program is told it is in a sandbox; CI runs as root.
		"IS_SANDBOX=1",
	)
	args := append([]string{"-p", run.Prompt,
		"--dangerously-skip-permissions", "--output-format", "stream-json", "--verbose"}, run.Args...)
	return start(t, run, launch{bin: bin, args: args, env: env})
}

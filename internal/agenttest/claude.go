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
// Home and Args such as --resume ID. With no Prompt, the turns come on
// run.Stdin: pass Args "--input-format", "stream-json" and write
// ClaudeMessage lines.
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
	args := []string{"-p"}
	if run.Prompt != "" {
		args = append(args, run.Prompt)
	}
	args = append(append(args, "--dangerously-skip-permissions", "--output-format", "stream-json", "--verbose"), run.Args...)
	env := append(claudeEnv(t, run), "ANTHROPIC_BASE_URL="+run.URL, "ANTHROPIC_API_KEY=fake-key")
	return start(t, run, launch{bin: bin, args: args, env: env})
}

// ClaudeCommand runs `claude ARGS` (such as `plugin install NAME`) in
// run.Dir, with run.Home and the environment of RunClaude's runs but for
// the model's address and key, and returns when it exits. Nothing is
// written into the settings first. With an API key, `claude plugin`
// commands wait for a service the isolated machine does not reach, until
// it times out.
func ClaudeCommand(t testing.TB, run Run, args ...string) *Result {
	t.Helper()
	bin := Binary(t, "claude")
	prepareHome(t, &run)
	return start(t, run, launch{bin: bin, args: args, env: claudeEnv(t, run)})
}

// claudeEnv is the environment of Claude Code's runs, but for the model's
// address and key.
func claudeEnv(t testing.TB, run Run) []string {
	return append(baseEnv(t, run.Home),
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
}

// ClaudeMessage is one user message for Claude Code's --input-format
// stream-json: a line to write on Run.Stdin, each the prompt of a turn.
func ClaudeMessage(prompt string) string {
	return mustJSON(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": prompt}}) + "\n"
}

// ClaudeRead is Claude Code's Read call. Claude Code edits only a file
// it has read (or written) in the session, so an Edit follows one.
func ClaudeRead(path string) Call {
	return Call{Name: "Read", Args: map[string]any{"file_path": path}}
}

// ClaudeEdit is Claude Code's Edit call: old, which must occur once in the
// file, becomes new.
func ClaudeEdit(path, old, new string) Call {
	return Call{Name: "Edit", Args: map[string]any{"file_path": path, "old_string": old, "new_string": new}}
}

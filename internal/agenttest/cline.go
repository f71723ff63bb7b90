package agenttest

import (
	"os"
	"path/filepath"
	"testing"
)

// RunCline runs Cline's CLI headless (cline --json -c DIR PROMPT: act
// mode, every tool approved) for one prompt against the fake Chat
// Completions server at run.URL and returns when it exits.
//
// Cline keeps its provider in ~/.cline/data/settings/providers.json,
// which `cline auth` writes: each run first runs `cline auth -p
// openai-compatible` with run.URL/v1 and ClineModel, as a person sets
// it up, then writes global settings that turn telemetry and updates
// off. Cline's hooks are executables in the workspace's
// .clinerules/hooks/, one per event, which the caller writes (as
// `git checkpoint install cline` does, or with ClineHooks): run.Hooks,
// run.Scope and run.Config are not read. Continue a session with the
// same Home and Args such as --id ID.
func RunCline(t testing.TB, run Run) *Result {
	t.Helper()
	bin := Binary(t, "cline")
	prepareHome(t, &run)
	env := append(baseEnv(t, run.Home),
		// No update checks or feature flags, which would reach npm's
		// and Cline's servers (its own test switch turns the flags off).
		"CLINE_NO_AUTO_UPDATE=1", "E2E_TEST=true", "DO_NOT_TRACK=1",
		// The session runs in this process, not in a hub daemon on a
		// fixed port that another run, or the developer's Cline, may
		// hold.
		"CLINE_SESSION_BACKEND_MODE=local",
	)
	writeFile(t, filepath.Join(run.Home, ".cline", "data", "settings", "global-settings.json"), clineSettings)
	auth := run
	auth.Stdin, auth.Output = nil, nil
	res := start(t, auth, launch{bin: bin, env: env, args: []string{"auth", "-p", "openai-compatible",
		"-k", "fake-key", "-m", ClineModel, "-b", run.URL + "/v1"}})
	if res.Err != nil {
		t.Fatalf("agenttest: cline auth failed: %s", res)
	}
	args := append([]string{"--json", "-c", run.Dir}, run.Args...)
	args = append(args, run.Prompt)
	return start(t, run, launch{bin: bin, args: args, env: env})
}

// ClineModel is the model Cline asks the fake for.
const ClineModel = "fake-model"

// clineSettings are the global settings every run starts from: no
// telemetry, no automatic update.
const clineSettings = `{"telemetryOptOut": true, "autoUpdateEnabled": false}
`

// ClineEditor is Cline's editor call that creates path with content, or
// replaces its content whole.
func ClineEditor(path, content string) Call {
	return Call{Name: "editor", Args: map[string]any{"path": path, "new_text": content}}
}

// ClineReplace is Cline's editor call that replaces old by new in path.
func ClineReplace(path, old, new string) Call {
	return Call{Name: "editor", Args: map[string]any{"path": path, "old_text": old, "new_text": new}}
}

// ClineCommands is Cline's run_commands call.
func ClineCommands(commands ...string) Call {
	return Call{Name: "run_commands", Args: map[string]any{"commands": commands}}
}

// ClineHooks writes, into dir's .clinerules/hooks/, an executable for
// each of the events (by their file names: TaskStart, PostToolUse, ...)
// that runs command with the payload on its standard input.
func ClineHooks(t testing.TB, dir, command string, events ...string) {
	t.Helper()
	for _, e := range events {
		path := filepath.Join(dir, ".clinerules", "hooks", e)
		writeFile(t, path, "#!/bin/sh\n"+command+"\n")
		if err := os.Chmod(path, 0o755); err != nil {
			t.Fatalf("agenttest: %v", err)
		}
	}
}

package agenttest

import (
	"path/filepath"
	"strconv"
	"testing"
)

// RunQwen runs Qwen Code headless (a positional prompt, --yolo, JSON
// output) for one prompt against the fake Chat Completions server at
// run.URL and returns when it exits.
//
// Qwen Code speaks the OpenAI Chat Completions API when its auth type is
// "openai"; OPENAI_BASE_URL, OPENAI_API_KEY and OPENAI_MODEL point it at
// the fake. It needs Node.js 22 or later: the pinned one (NodePath) comes
// first on PATH. Hooks go to run.Dir/.qwen/settings.json (ProjectScope;
// Qwen Code reads it unless the person turned folder trust on) or into
// the user settings ~/.qwen/settings.json (UserScope), in the shape
// HookConfig writes; run.Config is a JSON object merged into the user
// settings. Continue a session with the same Home and Args such as
// --resume ID.
func RunQwen(t testing.TB, run Run) *Result {
	t.Helper()
	bin := Binary(t, "qwen")
	prepareHome(t, &run)
	userParts := []string{qwenSettings, run.Config}
	if run.Hooks != "" {
		if run.Scope == UserScope {
			userParts = append(userParts, run.Hooks)
		} else {
			writeFile(t, filepath.Join(run.Dir, ".qwen", "settings.json"), run.Hooks)
		}
	}
	user, err := mergeJSON(userParts...)
	if err != nil {
		t.Fatalf("agenttest: qwen settings: %v", err)
	}
	writeFile(t, filepath.Join(run.Home, ".qwen", "settings.json"), user)
	env := append(baseEnv(t, run.Home),
		"OPENAI_BASE_URL="+run.URL+"/v1",
		"OPENAI_API_KEY=fake-key",
		"OPENAI_MODEL="+QwenModel,
		"QWEN_CODE_NO_RELAUNCH=true",
		"QWEN_USAGE_STATISTICS_ENABLED=false",
	)
	nodeFirst(t, &run)
	args := append([]string{"--yolo", "--output-format", "json", "--auth-type", "openai", "-m", QwenModel}, run.Args...)
	args = append(args, run.Prompt)
	return start(t, run, launch{bin: bin, args: args, env: env})
}

// QwenModel is the model Qwen Code asks the fake for.
const QwenModel = "fake-model"

// qwenSettings are the user settings every run starts from: the OpenAI
// auth type, and no usage statistics or update checks, which would reach
// Qwen's and npm's servers.
const qwenSettings = `{
  "security": {"auth": {"selectedType": "openai"}},
  "model": {"name": "fake-model"},
  "privacy": {"usageStatisticsEnabled": false},
  "general": {"enableAutoUpdate": false, "disableAutoUpdate": true, "disableUpdateNag": true}
}`

// QwenWriteFile is Qwen Code's write_file call.
func QwenWriteFile(path, content string) Call {
	return Call{Name: "write_file", Args: map[string]any{"file_path": path, "content": content}}
}

// QwenShell is Qwen Code's run_shell_command call.
func QwenShell(command string) Call {
	return Call{Name: "run_shell_command", Args: map[string]any{"command": command, "is_background": false,
		"description": "scripted command " + strconv.Quote(command)}}
}

// QwenAgent is Qwen Code's agent call, which starts a general-purpose
// subagent, in the background by default, with prompt. Put a key in
// prompt and the subagent's steps under that key in Script.Sub.
func QwenAgent(prompt string) Call {
	return Call{Name: "agent", Args: map[string]any{"description": "scripted subtask", "prompt": prompt,
		"subagent_type": "general-purpose"}}
}

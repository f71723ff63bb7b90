package agenttest

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
)

// HookConfig returns hook configuration that runs command on each of the
// events, for every tool (no matcher). Claude Code's settings, Codex's
// hooks.json and Gemini CLI's settings all use this shape:
// {"hooks": {EVENT: [{"hooks": [{"type": "command", "command": ...}]}]}}.
func HookConfig(command string, events ...string) string {
	hooks := map[string]any{}
	for _, e := range events {
		hooks[e] = []any{map[string]any{
			"hooks": []any{map[string]any{"type": "command", "command": command}},
		}}
	}
	b, _ := json.MarshalIndent(map[string]any{"hooks": hooks}, "", "  ")
	return string(b) + "\n"
}

// LogCommand returns a shell command that appends its standard input (a
// hook's JSON payload) and a newline to the file at path, and prints
// nothing: Gemini CLI reads a hook's stdout as JSON and the others add it to
// the model's context.
func LogCommand(path string) string {
	q := ShellQuote(path)
	return "cat >> " + q + " && echo >> " + q
}

// CodexNotify returns a config.toml line making Codex append its notify
// payload, which it passes as the last argument rather than on stdin, to
// the file at path.
func CodexNotify(path string) string {
	script := `printf '%s\n' "$1" >> ` + ShellQuote(path)
	return "notify = [" + strconv.Quote("sh") + ", " + strconv.Quote("-c") + ", " +
		strconv.Quote(script) + ", " + strconv.Quote("sh") + "]"
}

// ShellQuote quotes s for a POSIX shell.
func ShellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// HookEvent is one JSON payload read back from a hook log.
type HookEvent map[string]any

// Name is the payload's hook_event_name, or for a Codex notify payload its
// type ("agent-turn-complete").
func (e HookEvent) Name() string {
	if n := e.str("hook_event_name"); n != "" {
		return n
	}
	return e.str("type")
}

// Session is the payload's session_id, or a Codex notify payload's
// thread-id.
func (e HookEvent) Session() string {
	if s := e.str("session_id"); s != "" {
		return s
	}
	return e.str("thread-id")
}

// Tool is the payload's tool_name, if any.
func (e HookEvent) Tool() string { return e.str("tool_name") }

func (e HookEvent) str(k string) string {
	s, _ := e[k].(string)
	return s
}

// ReadHookLog reads every JSON payload from a file written by LogCommand or
// CodexNotify. A missing file holds no events.
func ReadHookLog(t testing.TB, path string) []HookEvent {
	t.Helper()
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatalf("agenttest: %v", err)
	}
	defer f.Close()
	var out []HookEvent
	dec := json.NewDecoder(f)
	for {
		var e HookEvent
		err := dec.Decode(&e)
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("agenttest: hook log %s: payload %d: %v", path, len(out)+1, err)
		}
		out = append(out, e)
	}
}

// EventNames lists each event's Name, with ":"+Tool() appended for tool
// events, such as "PostToolUse:Write".
func EventNames(events []HookEvent) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = e.Name()
		if tool := e.Tool(); tool != "" {
			out[i] += ":" + tool
		}
	}
	return out
}

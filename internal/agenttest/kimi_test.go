package agenttest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// kimiEvents are the hook events Kimi Code 2.1 accepts in config.toml: one
// name it does not know makes it reject the whole file.
var kimiEvents = []string{"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest",
	"PermissionResult", "UserPromptSubmit", "Stop", "StopFailure", "Interrupt", "SessionStart",
	"SessionEnd", "SubagentStart", "SubagentStop", "PreCompact", "PostCompact", "Notification"}

// kimiRecord copies the hook log to internal/agents/testdata/kimi/NAME
// when KIMI_RECORD is set: the payloads the parser's tests read.
func kimiRecord(t *testing.T, s scenario, name string) {
	if os.Getenv("KIMI_RECORD") == "" {
		return
	}
	b, err := os.ReadFile(s.log)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("..", "agents", "testdata", "kimi", name), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// kimiThinks is a model's last reply of a turn that takes a moment, as a
// real model's does: Kimi Code sends PostToolUse without waiting for its
// hook, and kills the hooks still running when the turn's last reply
// comes, so a reply at once would kill the last tool's hook.
func kimiThinks(text string) Step {
	return Step{Text: text, Wait: func() { time.Sleep(time.Second) }}
}

// Kimi Code 2.1 in prompt mode runs tools without asking, sends
// SessionStart but no SessionEnd, and its prompt is a list of parts.
func TestKimiTurn(t *testing.T) {
	s := newScenario(t)
	srv := NewChatServer(t, Script{Steps: []Step{
		Do(KimiWrite(s.path("written.txt"), "WRITTEN by the agent\n")),
		Do(KimiEdit(s.path("written.txt"), "WRITTEN", "written")),
		Do(KimiBash(shellEdit)),
		kimiThinks("All done."),
	}})
	res := RunKimi(t, Run{Dir: s.dir, URL: srv.URL, Prompt: "edit the files",
		Hooks: KimiHooks(LogCommand(s.log), kimiEvents...), Env: GitEnv()})
	mustSucceed(t, res, srv)
	s.checkEdits(t, "written.txt")
	events := ReadHookLog(t, s.log)
	checkEvents(t, events, []string{"SessionStart", "UserPromptSubmit",
		"PreToolUse:Write", "PostToolUse:Write", "PreToolUse:Edit", "PostToolUse:Edit",
		"PreToolUse:Bash", "PostToolUse:Bash", "Stop"})
	if got := KimiSession(res.Stdout); got == "" || got != events[0].Session() {
		t.Errorf("the output's session is %q, the hooks' %q", got, events[0].Session())
	}
	kimiRecord(t, s, "turn.jsonl")
}

// A command that fails is PostToolUseFailure.
func TestKimiFailingBash(t *testing.T) {
	s := newScenario(t)
	srv := NewChatServer(t, Script{Steps: []Step{
		Do(KimiBash("echo half > half.txt && exit 3")),
		kimiThinks("It failed."),
	}})
	res := RunKimi(t, Run{Dir: s.dir, URL: srv.URL, Prompt: "fail",
		Hooks: KimiHooks(LogCommand(s.log), "PostToolUse", "PostToolUseFailure"), Env: GitEnv()})
	mustSucceed(t, res, srv)
	checkEvents(t, ReadHookLog(t, s.log), []string{"PostToolUseFailure:Bash"})
	kimiRecord(t, s, "failure.jsonl")
}

// A subagent's tools come in the main session's hooks.
func TestKimiSubagent(t *testing.T) {
	s := newScenario(t)
	srv := NewChatServer(t, Script{Steps: []Step{
		Do(KimiAgent("SUBTASK-7: write sub.txt")),
		kimiThinks("All done."),
	}, Sub: map[string][]Step{"SUBTASK-7": {
		Do(KimiWrite(s.path("sub.txt"), "by the subagent\n")),
		kimiThinks("SUB-DONE"),
	}}})
	res := RunKimi(t, Run{Dir: s.dir, URL: srv.URL, Prompt: "delegate",
		Hooks: KimiHooks(LogCommand(s.log), kimiEvents...), Env: GitEnv()})
	mustSucceed(t, res, srv)
	if b, err := os.ReadFile(s.path("sub.txt")); err != nil || string(b) != "by the subagent\n" {
		t.Errorf("sub.txt: %q, %v", b, err)
	}
	// SubagentStart and SubagentStop name no agent id; the subagent's
	// Stop comes before its SubagentStop.
	checkEvents(t, ReadHookLog(t, s.log), []string{"SessionStart", "UserPromptSubmit",
		"PreToolUse:Agent", "SubagentStart", "PreToolUse:Write", "PostToolUse:Write",
		"Stop", "SubagentStop", "PostToolUse:Agent", "Stop"})
	kimiRecord(t, s, "subagent.jsonl")
}

// Kimi Code adds a UserPromptSubmit hook's "message", or its whole
// standard output when that is not JSON with one, to the model's context.
func TestKimiContextInjection(t *testing.T) {
	for _, out := range []string{`{"message":"` + note + `"}`, note} {
		s := newScenario(t)
		srv := NewChatServer(t, Script{})
		res := RunKimi(t, Run{Dir: s.dir, URL: srv.URL, Prompt: "say hello", Env: GitEnv(),
			Hooks: KimiHooks(LogCommand(s.log)+" && printf '%s\\n' "+ShellQuote(out), "UserPromptSubmit")})
		mustSucceed(t, res, srv)
		checkNoteReachedModel(t, s, srv, "say hello", note)
		if body := string(srv.Steps()[0].Body); strings.Contains(body, `{\"message\"`) {
			t.Errorf("the JSON itself reached the model:\n%s", body)
		}
	}
}

// One event name Kimi Code does not know makes it ignore every hook, with
// a warning on stderr; the run goes on. TurnStarted is one it knows
// though its documented list lacks it.
func TestKimiUnknownEvent(t *testing.T) {
	for _, tc := range []struct {
		event string
		want  []string
	}{
		{"TurnStarted", []string{"UserPromptSubmit", "TurnStarted"}},
		{"NoSuchEvent", nil},
	} {
		s := newScenario(t)
		srv := NewChatServer(t, Script{})
		res := RunKimi(t, Run{Dir: s.dir, URL: srv.URL, Prompt: "say hello", Env: GitEnv(),
			Hooks: KimiHooks(LogCommand(s.log), "UserPromptSubmit", tc.event)})
		mustSucceed(t, res, srv)
		if got := EventNames(ReadHookLog(t, s.log)); !slices.Equal(got, tc.want) {
			t.Errorf("%s: hooks %q, want %q", tc.event, got, tc.want)
		}
		if warned := strings.Contains(res.Stderr, "Ignored invalid config section 'hooks'"); warned != (tc.want == nil) {
			t.Errorf("%s: warned %v:\n%s", tc.event, warned, res.Stderr)
		}
	}
}

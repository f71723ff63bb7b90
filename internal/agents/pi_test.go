package agents

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/agenttest"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// TestPiFixtures parses the payloads the extension sent when the real Pi
// ran (testdata/pi, recorded by the end-to-end story as docs/agents.md
// says): the prompt starts a turn and may take a note, write and edit name
// their file as the model wrote it (relative or absolute), bash names
// none, and agent_end ends the turn.
func TestPiFixtures(t *testing.T) {
	const session = "01a24429-7a72-76c0-be4b-07366c4e9e9f"
	cases := []struct {
		fixture, reason, prompt, note string
		names                         []string
		exact                         bool
	}{
		{"before_agent_start", store.ReasonTurnStart, "TURN-ONE: edit the files", "before_agent_start", nil, false},
		{"tool_result-write", store.ReasonTool, "", "", []string{"written.txt"}, true},
		{"tool_result-edit", store.ReasonTool, "", "", []string{"/home/dev/lab/proj/written.txt"}, true},
		{"tool_result-bash", store.ReasonTool, "", "", nil, false},
		{"agent_end", store.ReasonTurnEnd, "", "", nil, false},
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "pi", "*.json"))
	if len(files) != len(cases) {
		t.Errorf("%d fixtures, %d cases", len(files), len(cases))
	}
	for _, c := range cases {
		data, err := os.ReadFile(filepath.Join("testdata", "pi", c.fixture+".json"))
		if err != nil {
			t.Fatal(err)
		}
		ev, err := Parse(Pi, nil, data, false)
		if err != nil {
			t.Errorf("%s: %v", c.fixture, err)
			continue
		}
		if ev.Reason != c.reason || ev.Session != session || ev.Prompt != c.prompt || ev.NoteEvent != c.note ||
			!slices.Equal(ev.Names, c.names) || ev.Exact != c.exact || ev.Cwd != "/home/dev/lab/proj" ||
			!strings.HasPrefix(ev.Transcript, "/home/dev/lab/home/.pi/agent/sessions/") {
			t.Errorf("%s:\n got reason %q session %q prompt %q note %q names %q exact %v cwd %q\nwant reason %q session %q prompt %q note %q names %q exact %v",
				c.fixture, ev.Reason, ev.Session, ev.Prompt, ev.NoteEvent, ev.Names, ev.Exact, ev.Cwd,
				c.reason, session, c.prompt, c.note, c.names, c.exact)
		}
		if !strings.HasPrefix(string(data), "{\n \"hook_event_name\": ") {
			t.Errorf("%s: the event's name is not first, so a cut payload cannot be read", c.fixture)
		}
	}
	// Pi's tools that only read take no checkpoint.
	for _, tool := range []string{"read", "grep", "find", "ls"} {
		ev, err := Parse(Pi, nil, []byte(`{"hook_event_name":"tool_result","tool_name":"`+tool+`","tool_input":{"path":"a"}}`), false)
		if err != nil || ev.Reason != "" {
			t.Errorf("%s: reason %q, %v", tool, ev.Reason, err)
		}
	}
}

// piHarness drives the extension as Pi does, with what Pi did in print
// mode: before_agent_start and tool_result awaited; the first prompt's
// agent_end delivered only after the second prompt's before_agent_start
// (as when a slow handler held Pi's event queue), the second's never;
// session_shutdown awaited. It prints the message before_agent_start
// returned and "resolved" once all returned, after copying the calls
// made by the time session_shutdown returned.
const piHarness = `
const ext = (await import(process.argv[2])).default
const handlers = {}
ext({ on: (name, fn) => { handlers[name] = fn } })
const ctx = { cwd: process.cwd(), hasUI: false,
  sessionManager: { getSessionId: () => "s1", getSessionFile: () => "/sessions/s1.jsonl" } }
const first = await handlers.before_agent_start({ prompt: "one", systemPrompt: "" }, ctx)
await handlers.tool_result({ toolName: "write", toolCallId: "c1", input: { path: "a", content: "x" },
  content: [{ type: "text", text: "TOOL-OUTPUT ".repeat(200000) }], isError: false }, ctx)
await handlers.tool_result({ toolName: "read", toolCallId: "c2", input: { path: "a" }, content: [], isError: false }, ctx)
const second = await handlers.before_agent_start({ prompt: "two", systemPrompt: "" }, ctx)
await handlers.agent_end({ messages: [] }, ctx) // the first prompt's, late
await handlers.tool_result({ toolName: "bash", toolCallId: "c3", input: { command: "true" }, content: [], isError: false }, ctx)
await handlers.session_shutdown({ reason: "quit" }, ctx)
const fs = await import("node:fs")
if (fs.existsSync(process.argv[3])) fs.copyFileSync(process.argv[3], process.argv[3] + ".at-shutdown")
console.log(JSON.stringify(first ?? null))
console.log(JSON.stringify(second ?? null))
console.log("resolved")
`

// TestPiExtensionRuns runs the extension under node: calls go out one at
// a time, in order; a prompt that starts while a turn is open ends that
// turn first, and the turn's late agent_end ends nothing; session_shutdown
// returns only once the last turn's end is recorded; the note the hook
// prints reaches the model as a message; and without git-checkpoint on
// PATH every handler still returns and nothing is thrown.
func TestPiExtensionRuns(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		agenttest.Missing(t, "node is not installed, so the extension cannot be run")
	}
	dir := t.TempDir()
	// .mjs: node 20 cannot load .ts; the text is plain JavaScript.
	ext := filepath.Join(dir, "git-checkpoint.mjs")
	harness := filepath.Join(dir, "harness.mjs")
	os.WriteFile(ext, []byte(piExtension()), 0o644)
	os.WriteFile(harness, []byte(piHarness), 0o644)
	bin := filepath.Join(dir, "bin")
	os.Mkdir(bin, 0o755)
	log := filepath.Join(dir, "calls.log")
	// Each call takes a while, so a call not waited for is cut off; the
	// first prompt's start answers with a note.
	fake := "#!/bin/sh\nsleep 0.2\nin=$(cat)\n{ echo \"$*\"; echo \"$in\"; echo; } >> " + log + "\n" +
		"case $in in *'\"prompt\":\"one\"'*) echo '{\"hookSpecificOutput\":{\"hookEventName\":\"before_agent_start\",\"additionalContext\":\"NOTE-1\"}}';; esac\n"
	os.WriteFile(filepath.Join(bin, "git-checkpoint"), []byte(fake), 0o755)

	run := func(path string) []string {
		cmd := exec.Command(node, harness, ext, log)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "PATH="+path)
		out, err := cmd.CombinedOutput()
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if err != nil || len(lines) != 3 || lines[2] != "resolved" {
			t.Fatalf("the extension under node: %v\n%s", err, out)
		}
		return lines[:2]
	}
	answers := run(bin + string(os.PathListSeparator) + os.Getenv("PATH"))
	if want := `{"message":{"customType":"git-checkpoint","content":"NOTE-1","display":true}}`; answers[0] != want || answers[1] != "null" {
		t.Errorf("before_agent_start returned %q, want %q then null", answers, want)
	}
	b, _ := os.ReadFile(log + ".at-shutdown")
	var names []string
	for _, c := range strings.Split(strings.TrimSpace(string(b)), "\n\n") {
		args, body, _ := strings.Cut(c, "\n")
		if args != "hook pi" {
			t.Errorf("called with %q", args)
		}
		if len(body) > 4096 || strings.Contains(body, "TOOL-OUTPUT") {
			t.Errorf("a call sent %d bytes, the tool's output with them: %.200s", len(body), body)
		}
		ev, err := Parse(Pi, nil, []byte(body), false)
		if err != nil {
			t.Fatalf("%v: %.300s", err, body)
		}
		names = append(names, strings.Join(strings.Fields(ev.Name+" "+ev.Session+" "+ev.Reason+" "+ev.Prompt+" "+strings.Join(ev.Names, ",")), " "))
	}
	want := []string{"before_agent_start s1 turn_start one", "tool_result s1 tool a", "tool_result s1",
		"agent_end s1 turn_end", "before_agent_start s1 turn_start two", "tool_result s1 tool", "agent_end s1 turn_end"}
	if strings.Join(names, "|") != strings.Join(want, "|") {
		t.Errorf("calls:\n got %q\nwant %q", names, want)
	}

	// without git-checkpoint: nothing to run, nothing thrown
	os.Remove(log)
	os.Remove(log + ".at-shutdown")
	if answers := run(filepath.Dir(node)); answers[0] != "null" || answers[1] != "null" {
		t.Errorf("without git-checkpoint, before_agent_start returned %q", answers)
	}
	if _, err := os.Stat(log); err == nil {
		t.Error("a git-checkpoint that is not on PATH ran")
	}
}

// TestPiExtensionHooksItsEvents: the extension sends every event the
// agent hooks, and names the hook command on its first line (the marker
// install and uninstall know it by).
func TestPiExtensionHooksItsEvents(t *testing.T) {
	src := piExtension()
	for _, e := range pi.hooked() {
		if !strings.Contains(src, `"`+e+`"`) {
			t.Errorf("the extension does not send %s", e)
		}
	}
	if !ourPlugin([]byte(src), Pi) || ourPlugin([]byte("// my extension\n"+src), Pi) || ourPlugin([]byte(src), OpenCode) {
		t.Error("the extension's marker is not its first line")
	}
	if !strings.Contains(src, "30000") {
		t.Error("the extension does not give up after HookTimeout")
	}
}

// TestPiTranscriptUsesFixtures: the hook transcript plays the recorded
// payloads, not copies that drifted from them.
func TestPiTranscriptUsesFixtures(t *testing.T) {
	transcriptPlaysFixtures(t, "hook_pi_events.txtar", "pi")
}

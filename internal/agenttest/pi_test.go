package agenttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// piObserver is an extension that appends every event Pi gives it, with
// what its context says, to the file PI_OBSERVE_LOG names, one JSON line
// each, and answers before_agent_start with a message for the model.
const piObserver = `import { appendFileSync } from "node:fs"
const events = ["session_start", "input", "before_agent_start", "agent_start", "turn_start",
  "tool_call", "tool_result", "turn_end", "agent_end", "session_shutdown"]
export default function (pi) {
  for (const name of events) {
    pi.on(name, async (event, ctx) => {
      const line = { event: name, payload: event, ctx: { cwd: ctx.cwd,
        sessionId: ctx.sessionManager.getSessionId(), sessionFile: ctx.sessionManager.getSessionFile() } }
      if (name === "before_agent_start" || name === "agent_end") delete line.payload.systemPromptOptions
      appendFileSync(process.env.PI_OBSERVE_LOG, JSON.stringify(line) + "\n")
      if (name === "agent_end") await new Promise((r) => setTimeout(r, 500))
      if (name === "before_agent_start") return { message: { customType: "observer", content: "INJECTED-NOTE", display: false } }
    })
  }
}
`

// TestPiTurn runs Pi with an extension that logs its events: a prompt
// writes, edits and runs a command, a second prompt follows in the same
// run; the model gets the message before_agent_start returns. With
// PI_OBSERVE_DIR set, the log is copied there. (Its agent_end handler
// takes 500 ms: Pi 0.73.1 then delivered none of the second prompt's
// agent_start, turn or agent_end events, only its before_agent_start;
// docs/agents.md says what the extension install writes does about it.)
func TestPiTurn(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "c.txt"), []byte("keep\n"), 0o644)
	srv := NewChatServer(t, Script{Steps: []Step{
		Do(PiWrite("a.txt", "written\n")),
		Do(PiEdit(filepath.Join(dir, "c.txt"), "keep", "kept and edited")),
		Do(PiBash("echo made > made.txt && rm c.txt")),
		Say("ONE-DONE"),
		Say("TWO-DONE"),
	}})
	log := filepath.Join(t.TempDir(), "events.jsonl")
	res := RunPi(t, Run{Dir: dir, URL: srv.URL, Prompt: "PROMPT-TWO", Args: []string{"PROMPT-ONE"},
		Hooks: piObserver, Env: []string{"PI_OBSERVE_LOG=" + log}})
	if res.Err != nil {
		t.Fatalf("pi: %s\n%s", res, srv.Dump())
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if d := os.Getenv("PI_OBSERVE_DIR"); d != "" {
		os.WriteFile(filepath.Join(d, "events.jsonl"), b, 0o644)
	}
	var names []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var ev struct {
			Event   string `json:"event"`
			Payload struct {
				ToolName string `json:"toolName"`
			} `json:"payload"`
		}
		json.Unmarshal([]byte(line), &ev)
		names = append(names, strings.TrimSpace(ev.Event+" "+ev.Payload.ToolName))
	}
	t.Logf("events: %q", names)
	for _, want := range []string{"before_agent_start", "tool_result write", "tool_result edit", "tool_result bash", "agent_end"} {
		if !strings.Contains(strings.Join(names, "|"), want) {
			t.Errorf("no %s among the events", want)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "made.txt")); string(got) != "made\n" {
		t.Errorf("made.txt: %q", got)
	}
	if !strings.Contains(string(srv.Steps()[0].Body), "INJECTED-NOTE") {
		t.Errorf("the model did not get the message before_agent_start returned:\n%s", srv.Dump())
	}
}

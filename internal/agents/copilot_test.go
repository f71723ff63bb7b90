package agents

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// TestCopilotPayloads reads the payloads GitHub Copilot CLI 1.0.102 sent
// its hooks in one turn (testdata/copilot-*.json, recorded against a fake
// model with paths rewritten to /home/dev/lab): what each one takes, the
// files it names and the session it belongs to. The copilot-sub-* ones
// are a subagent's, which Copilot CLI sends as a session of its own.
func TestCopilotPayloads(t *testing.T) {
	const main, sub = "6f1c4589-4b94-41e8-bf55-4609a4e7d0ce", "da3b028e-5c1d-4cf3-935f-53d4a60e5b57"
	cases := []struct {
		file, reason, note, prompt string
		names                      []string
		exact                      bool
	}{
		{file: "SessionStart"},
		{file: "UserPromptSubmit", reason: store.ReasonTurnStart, note: "UserPromptSubmit", prompt: "edit the files"},
		{file: "PreToolUse-Write"},
		{file: "PostToolUse-Write", reason: store.ReasonTool, names: []string{"/home/dev/lab/written.txt"}, exact: true},
		{file: "PostToolUse-Edit", reason: store.ReasonTool, names: []string{"/home/dev/lab/written.txt"}, exact: true},
		{file: "PostToolUse-Bash", reason: store.ReasonTool},
		{file: "PostToolUse-Read"},
		// A failed edit may still have changed the file; it is captured.
		{file: "PostToolUseFailure-Edit", reason: store.ReasonTool, names: []string{"/home/dev/lab/written.txt"}, exact: true},
		{file: "PostToolUseFailure-Write", reason: store.ReasonTool, names: []string{"/home/dev/lab/exists.txt"}, exact: true},
		// The subagent's prompt and stop are inside the main turn; its
		// writes are the main session's.
		{file: "sub-UserPromptSubmit"},
		{file: "sub-PostToolUse-Write", reason: store.ReasonTool, names: []string{"/home/dev/lab/sub.txt"}, exact: true},
		{file: "sub-Stop"},
		{file: "SubagentStop", reason: store.ReasonTurnEnd},
		{file: "PostToolUse-Agent"},
		{file: "Stop", reason: store.ReasonTurnEnd},
		{file: "SessionEnd"},
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "copilot-*.json"))
	if len(files) != len(cases) {
		t.Errorf("%d payloads in testdata, %d cases", len(files), len(cases))
	}
	for _, c := range cases {
		data, err := os.ReadFile(filepath.Join("testdata", "copilot-"+c.file+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(c.file, "sub-") && !strings.Contains(string(data), `"session_id": "`+sub+`"`) {
			t.Errorf("%s: not in the subagent's own session", c.file)
		}
		ev, err := Parse(Copilot, nil, data, false)
		if err != nil {
			t.Errorf("%s: %v", c.file, err)
			continue
		}
		session := main
		if ev.Reason != c.reason || ev.NoteEvent != c.note || ev.Session != session || ev.Prompt != c.prompt ||
			!slices.Equal(ev.Names, c.names) || ev.Exact != c.exact || ev.Cwd != "/home/dev/lab" {
			t.Errorf("%s:\n got reason %q note %q session %q prompt %q names %q exact %v cwd %q\nwant reason %q note %q session %q prompt %q names %q exact %v",
				c.file, ev.Reason, ev.NoteEvent, ev.Session, ev.Prompt, ev.Names, ev.Exact, ev.Cwd,
				c.reason, c.note, session, c.prompt, c.names, c.exact)
		}
	}
}

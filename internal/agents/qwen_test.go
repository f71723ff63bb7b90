package agents

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// TestQwenPayloads reads the payloads Qwen Code 0.24.4 sent its hooks
// (testdata/qwen/, recorded against a fake model with paths rewritten to
// /home/dev/lab): what each one takes, the files it names. Its
// UserPromptSubmit comes again before every model request of a turn,
// with an empty prompt: only the person's prompt starts a turn and takes
// the note. The sub-* one is a background subagent's write, which comes
// in the main session after the main agent's Stop.
func TestQwenPayloads(t *testing.T) {
	const session = "434add7d-4875-41ad-9eaa-4b55c8564149"
	cases := []struct {
		file, reason, note, prompt string
		names                      []string
		exact                      bool
	}{
		{file: "SessionStart"},
		{file: "SessionStart-resume"},
		{file: "Notification"},
		{file: "UserPromptSubmit", reason: store.ReasonTurnStart, note: "UserPromptSubmit", prompt: "edit the files"},
		{file: "UserPromptSubmit-continued"},
		{file: "PreToolUse-write_file"},
		{file: "PostToolUse-write_file", reason: store.ReasonTool, names: []string{"/home/dev/lab/written.txt"}, exact: true},
		// A failed edit may still have changed its file; it is captured.
		{file: "PostToolUseFailure-edit", reason: store.ReasonTool, names: []string{"/home/dev/lab/ed.txt"}, exact: true},
		// The shell names no files, failed or not.
		{file: "PostToolUseFailure-run_shell_command", reason: store.ReasonTool},
		{file: "PostToolUse-run_shell_command", reason: store.ReasonTool},
		{file: "PostToolBatch"},
		{file: "SubagentStart"},
		{file: "PostToolUse-agent"},
		{file: "Stop", reason: store.ReasonTurnEnd},
		{file: "sub-PostToolUse-write_file", reason: store.ReasonTool, names: []string{"/home/dev/lab/sub.txt"}, exact: true},
		{file: "SubagentStop", reason: store.ReasonTurnEnd},
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "qwen", "*.json"))
	if len(files) != len(cases) {
		t.Errorf("%d payloads in testdata/qwen, %d cases", len(files), len(cases))
	}
	for _, c := range cases {
		data, err := os.ReadFile(filepath.Join("testdata", "qwen", c.file+".json"))
		if err != nil {
			t.Fatal(err)
		}
		ev, err := Parse(Qwen, nil, data, false)
		if err != nil {
			t.Errorf("%s: %v", c.file, err)
			continue
		}
		if ev.Reason != c.reason || ev.NoteEvent != c.note || ev.Session != session || ev.Prompt != c.prompt ||
			!slices.Equal(ev.Names, c.names) || ev.Exact != c.exact || ev.Cwd != "/home/dev/lab" {
			t.Errorf("%s:\n got reason %q note %q session %q prompt %q names %q exact %v cwd %q\nwant reason %q note %q session %q prompt %q names %q exact %v",
				c.file, ev.Reason, ev.NoteEvent, ev.Session, ev.Prompt, ev.Names, ev.Exact, ev.Cwd,
				c.reason, c.note, session, c.prompt, c.names, c.exact)
		}
	}
}

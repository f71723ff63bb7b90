package agents

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// TestCursorPayloads reads payloads in the shapes Cursor's hooks
// documentation and its users' reports give (testdata/cursor/; Cursor
// could not run here): the conversation is the session, the workspace
// root the directory when the event names none, afterFileEdit names its
// one file, afterShellExecution none. The events install does not hook
// take nothing.
func TestCursorPayloads(t *testing.T) {
	const session = "668320d2-2fd8-4888-b33c-2a466fec86e7"
	cases := []struct {
		file, reason, prompt, tool string
		names                      []string
		exact                      bool
	}{
		{file: "beforeSubmitPrompt", reason: store.ReasonTurnStart, prompt: "edit the files"},
		{file: "afterFileEdit", reason: store.ReasonTool, tool: "Edit", names: []string{"/home/dev/lab/written.txt"}, exact: true},
		{file: "afterShellExecution", reason: store.ReasonTool, tool: "Shell"},
		{file: "afterShellExecution-nocwd", reason: store.ReasonTool, tool: "Shell"},
		{file: "stop", reason: store.ReasonTurnEnd},
		{file: "beforeShellExecution"},
		{file: "afterAgentResponse"},
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "cursor", "*.json"))
	if len(files) != len(cases) {
		t.Errorf("%d payloads in testdata/cursor, %d cases", len(files), len(cases))
	}
	for _, c := range cases {
		data, err := os.ReadFile(filepath.Join("testdata", "cursor", c.file+".json"))
		if err != nil {
			t.Fatal(err)
		}
		ev, err := Parse(Cursor, nil, data, false)
		if err != nil {
			t.Errorf("%s: %v", c.file, err)
			continue
		}
		if ev.Reason != c.reason || ev.NoteEvent != "" || ev.Session != session || ev.Prompt != c.prompt ||
			(c.reason == store.ReasonTool && ev.Tool != c.tool) ||
			!slices.Equal(ev.Names, c.names) || ev.Exact != c.exact || ev.Cwd != "/home/dev/lab" {
			t.Errorf("%s:\n got reason %q note %q session %q prompt %q tool %q names %q exact %v cwd %q\nwant reason %q session %q prompt %q tool %q names %q exact %v",
				c.file, ev.Reason, ev.NoteEvent, ev.Session, ev.Prompt, ev.Tool, ev.Names, ev.Exact, ev.Cwd,
				c.reason, session, c.prompt, c.tool, c.names, c.exact)
		}
	}
}

// TestCursorHooksOnlyKnownEvents guards against the one mistake Cursor
// punishes hardest: an event name it does not know in hooks.json makes
// it ignore every hook of the file, without a word. Install writes only
// the four events every Cursor with hooks (1.7 on) knows.
func TestCursorHooksOnlyKnownEvents(t *testing.T) {
	want := []string{"beforeSubmitPrompt", "afterFileEdit", "afterShellExecution", "stop"}
	if got := cursor.hooked(); !slices.Equal(got, want) {
		t.Errorf("cursor hooks %q, want %q", got, want)
	}
}

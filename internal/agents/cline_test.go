package agents

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// TestClinePayloads reads the payloads Cline CLI 3.0.65 sent its hooks
// (testdata/cline/, recorded against a fake model with paths rewritten
// to /home/dev/lab): hookName carries the runtime names (agent_start,
// tool_result, agent_end), which are read as the files' names; the
// session is sessionContext.rootSessionId; editor names its one file,
// run_commands none, failed or not; read_files takes nothing. The doc-*
// payload is in the shape Cline's hook reference shows (hookName the
// file's name, postToolUse {toolName, parameters}).
func TestClinePayloads(t *testing.T) {
	const session = "1796441457805_qyizx"
	cases := []struct {
		file, reason, tool, session string
		names                       []string
		exact                       bool
	}{
		{file: "TaskStart", reason: store.ReasonTurnStart},
		{file: "PreToolUse-editor"},
		{file: "PreToolUse-run_commands"},
		{file: "PreToolUse-read_files"},
		{file: "PostToolUse-editor", reason: store.ReasonTool, tool: "editor", names: []string{"/home/dev/lab/written.txt"}, exact: true},
		{file: "PostToolUse-editor-edit", reason: store.ReasonTool, tool: "editor", names: []string{"/home/dev/lab/written.txt"}, exact: true},
		{file: "PostToolUse-run_commands", reason: store.ReasonTool, tool: "run_commands"},
		{file: "PostToolUse-run_commands-failed", reason: store.ReasonTool, tool: "run_commands"},
		{file: "PostToolUse-read_files", tool: "read_files"},
		{file: "TaskComplete", reason: store.ReasonTurnEnd},
		{file: "doc-PostToolUse-write_to_file", reason: store.ReasonTool, tool: "write_to_file", session: "task-123", names: []string{"/home/dev/lab/src/app.ts"}, exact: true},
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "cline", "*.json"))
	if len(files) != len(cases) {
		t.Errorf("%d payloads in testdata/cline, %d cases", len(files), len(cases))
	}
	for _, c := range cases {
		data, err := os.ReadFile(filepath.Join("testdata", "cline", c.file+".json"))
		if err != nil {
			t.Fatal(err)
		}
		ev, err := Parse(Cline, nil, data, false)
		if err != nil {
			t.Errorf("%s: %v", c.file, err)
			continue
		}
		want := session
		if c.session != "" {
			want = c.session
		}
		if ev.Reason != c.reason || ev.NoteEvent != "" || ev.Session != want || ev.Tool != c.tool ||
			!slices.Equal(ev.Names, c.names) || ev.Exact != c.exact || ev.Cwd != "/home/dev/lab" {
			t.Errorf("%s:\n got reason %q session %q tool %q names %q exact %v cwd %q\nwant reason %q session %q tool %q names %q exact %v",
				c.file, ev.Reason, ev.Session, ev.Tool, ev.Names, ev.Exact, ev.Cwd, c.reason, want, c.tool, c.names, c.exact)
		}
	}
}

// TestClineSubagent: a subagent's events come with parent_agent_id set
// and the root session. Its tools count in the person's turn; its own
// start and end are steps inside that turn. (Built from the recorded
// payloads: the fake model run had no subagent.)
func TestClineSubagent(t *testing.T) {
	for file, reason := range map[string]string{"TaskStart": "", "PostToolUse-editor": store.ReasonTool, "TaskComplete": ""} {
		data, err := os.ReadFile(filepath.Join("testdata", "cline", file+".json"))
		if err != nil {
			t.Fatal(err)
		}
		sub := strings.Replace(string(data), `"parent_agent_id": null`, `"parent_agent_id": "agent_main"`, 1)
		if sub == string(data) {
			t.Fatalf("%s: no parent_agent_id", file)
		}
		ev, err := Parse(Cline, nil, []byte(sub), false)
		if err != nil || ev.Reason != reason || ev.Session != "1796441457805_qyizx" {
			t.Errorf("subagent's %s: reason %q session %q, %v; want reason %q in the root session", file, ev.Reason, ev.Session, err, reason)
		}
	}
}

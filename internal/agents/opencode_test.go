package agents

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// TestOpenCodeFixtures parses the payloads the plugin sent when the real
// OpenCode ran (testdata/opencode, recorded as docs/agents.md says): a
// prompt starts a turn, write and edit name their file, bash names none,
// a subagent's events belong to its parent's session and start or end
// nothing, and session.idle ends the turn.
func TestOpenCodeFixtures(t *testing.T) {
	const main, sub = "ses_dcd50efe4ffereU0cO5vGJpOGf", "ses_dcd50da90ffeuOpnmJglFv5B"
	cases := []struct {
		fixture, reason, session, prompt string
		names                            []string
		exact                            bool
	}{
		{"chat.message", store.ReasonTurnStart, main, `"write b and run a command"`, nil, false},
		{"tool.execute.after-write", store.ReasonTool, main, "", []string{"/home/dev/lab/proj/b.txt"}, true},
		{"tool.execute.after-edit", store.ReasonTool, main, "", []string{"log.txt"}, true},
		{"tool.execute.after-bash", store.ReasonTool, main, "", nil, false},
		{"chat.message-subagent", "", main, "", nil, false},
		{"tool.execute.after-write-subagent", store.ReasonTool, main, "", []string{"/home/dev/lab/proj/sub.txt"}, true},
		{"session.idle-subagent", "", main, "", nil, false},
		{"tool.execute.after-task", "", main, "", nil, false},
		{"session.idle", store.ReasonTurnEnd, main, "", nil, false},
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "opencode", "*.json"))
	if len(files) != len(cases) {
		t.Errorf("%d fixtures, %d cases", len(files), len(cases))
	}
	for _, c := range cases {
		data, err := os.ReadFile(filepath.Join("testdata", "opencode", c.fixture+".json"))
		if err != nil {
			t.Fatal(err)
		}
		ev, err := Parse(OpenCode, nil, data, false)
		if err != nil {
			t.Errorf("%s: %v", c.fixture, err)
			continue
		}
		if ev.Reason != c.reason || ev.Session != c.session || ev.Prompt != c.prompt ||
			!slices.Equal(ev.Names, c.names) || ev.Exact != c.exact || ev.Cwd != "/home/dev/lab/proj" {
			t.Errorf("%s:\n got reason %q session %q prompt %q names %q exact %v cwd %q\nwant reason %q session %q prompt %q names %q exact %v",
				c.fixture, ev.Reason, ev.Session, ev.Prompt, ev.Names, ev.Exact, ev.Cwd, c.reason, c.session, c.prompt, c.names, c.exact)
		}
		if !strings.HasPrefix(string(data), "{\n \"hook_event_name\": ") {
			t.Errorf("%s: the event's name is not first, so a cut payload cannot be read", c.fixture)
		}
	}
}

// TestOpenCodePrompt: the prompt is the person's text parts, not the ones
// OpenCode adds.
func TestOpenCodePrompt(t *testing.T) {
	out := `{"parts":[{"type":"text","text":"fix it"},{"type":"file","url":"file:///r/a.go"},` +
		`{"type":"text","synthetic":true,"text":"Called the Read tool"},{"type":"text","text":"and test it"}]}`
	if got := openCodePrompt([]byte(out)); got != "fix it\nand test it" {
		t.Errorf("prompt %q", got)
	}
	for _, bad := range []string{``, `[]`, `{"parts":{}}`} {
		if got := openCodePrompt([]byte(bad)); got != "" {
			t.Errorf("prompt of %s: %q", bad, got)
		}
	}
}

// TestOpenCodePluginHooksItsEvents: the plugin sends every event the
// agent hooks, and names the hook command on its first line (the marker
// install and uninstall know it by).
func TestOpenCodePluginHooksItsEvents(t *testing.T) {
	src := openCodePlugin()
	for _, e := range opencode.hooked() {
		if !strings.Contains(src, `"`+e+`"`) {
			t.Errorf("the plugin does not send %s", e)
		}
	}
	if !ourPlugin([]byte(src), OpenCode) || ourPlugin([]byte("// my plugin\n"+src), OpenCode) {
		t.Error("the plugin's marker is not its first line")
	}
	if !strings.Contains(src, "30000") {
		t.Error("the plugin does not give up after HookTimeout")
	}
}

// TestOpenCodeTranscriptUsesFixtures: the hook transcript plays the
// recorded payloads, not copies that drifted from them.
func TestOpenCodeTranscriptUsesFixtures(t *testing.T) {
	transcriptPlaysFixtures(t, "hook_opencode_events.txtar", "opencode")
}

// transcriptPlaysFixtures checks that the transcript script plays every
// payload recorded in testdata/<dir>, each as recorded.
func transcriptPlaysFixtures(t *testing.T, script, dir string) {
	t.Helper()
	a, err := txtar.ParseFile(filepath.Join("..", "..", "testdata", "scripts", script))
	if err != nil {
		t.Fatal(err)
	}
	played := 0
	for _, f := range a.Files {
		want, err := os.ReadFile(filepath.Join("testdata", dir, f.Name))
		if err != nil {
			continue // the repository's files
		}
		played++
		if string(f.Data) != string(want) {
			t.Errorf("the transcript's %s differs from testdata/%s/%s", f.Name, dir, f.Name)
		}
	}
	files, _ := filepath.Glob(filepath.Join("testdata", dir, "*.json"))
	if played == 0 || played != len(files) {
		t.Errorf("the transcript plays %d of the %d fixtures", played, len(files))
	}
}

package agents

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

func TestParseMapsEvents(t *testing.T) {
	cases := []struct {
		agent, input    string
		args            []string
		reason, note    string
		names           []string
		reply           string
		lastLine, unkwn bool
	}{
		{agent: Claude, input: `{"hook_event_name":"SessionStart","session_id":"s"}`},
		{agent: Claude, input: `{"hook_event_name":"UserPromptSubmit"}`, reason: "turn_start", note: "UserPromptSubmit"},
		{agent: Claude, input: `{"hook_event_name":"PostToolUse","tool_name":"Edit","tool_input":{"file_path":"/r/a.go"}}`,
			reason: "tool", names: []string{"/r/a.go"}},
		{agent: Claude, input: `{"hook_event_name":"PostToolUse","tool_name":"NotebookEdit","tool_input":{"notebook_path":"n.ipynb"}}`,
			reason: "tool", names: []string{"n.ipynb"}},
		{agent: Claude, input: `{"hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"exit 3"}}`,
			reason: "tool"},
		{agent: Claude, input: `{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_response":{"bashEditDiff":{"changedFiles":["/r/x","/r/y"]}}}`,
			reason: "tool", names: []string{"/r/x", "/r/y"}},
		{agent: Claude, input: `{"hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{"file_path":"/r/a.go"}}`},
		{agent: Claude, input: `{"hook_event_name":"PostToolUse","tool_name":"mcp__fs__write","tool_input":{"file_path":"/r/m"}}`,
			reason: "tool", names: []string{"/r/m"}},
		{agent: Claude, input: `{"hook_event_name":"Stop","last_assistant_message":"All done."}`, reason: "turn_end", lastLine: true, reply: "All done."},
		{agent: Claude, input: `{"hook_event_name":"SubagentStop","last_assistant_message":"the subagent's"}`, reason: "turn_end", lastLine: true},
		{agent: Claude, input: `{"hook_event_name":"SubagentStop"}`, reason: "turn_end", lastLine: true},
		{agent: Claude, input: `{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"/r/a"}}`},
		{agent: Claude, input: `{"hook_event_name":"Bogus"}`, unkwn: true},
		{agent: Codex, input: `{"hook_event_name":"UserPromptSubmit"}`, reason: "turn_start", note: "UserPromptSubmit"},
		{agent: Codex, input: `{"hook_event_name":"SessionStart"}`},
		{agent: Codex, input: `{"hook_event_name":"PostToolUse","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Add File: n.txt\n+x\n*** Update File: a.txt\n*** Move to: b.txt\n*** Delete File: c.txt\n*** End Patch\n"}}`,
			reason: "tool", names: []string{"n.txt", "a.txt", "b.txt", "c.txt"}},
		{agent: Codex, input: `{"hook_event_name":"Stop"}`, reason: "turn_end"},
		{agent: Codex, args: []string{"notify", `{"type":"agent-turn-complete","thread-id":"th","cwd":"/r"}`}, reason: "turn_end"},
		{agent: Codex, args: []string{"notify", "old-notifier", "-x", `{"type":"agent-turn-complete","thread-id":"th"}`}, reason: "turn_end"},
		{agent: Codex, args: []string{"notify", `{"type":"approval-requested"}`}, unkwn: true},
		{agent: Gemini, input: `{"hook_event_name":"BeforeAgent"}`, reason: "turn_start", note: "BeforeAgent"},
		{agent: Gemini, input: `{"hook_event_name":"AfterTool","tool_name":"write_file","tool_input":{"file_path":"/r/h"}}`,
			reason: "tool", names: []string{"/r/h"}},
		{agent: Gemini, input: `{"hook_event_name":"AfterTool","tool_name":"read_file","tool_input":{"file_path":"/r/h"}}`},
		{agent: Gemini, input: `{"hook_event_name":"AfterAgent"}`, reason: "turn_end"},
		{agent: Aider, args: []string{"post-commit"}, reason: "commit"},
		{agent: Aider, reason: "commit"},
		{agent: Aider, args: []string{"pre-commit"}, unkwn: true},
		{agent: "vim", input: `{}`, unkwn: true},
	}
	for _, c := range cases {
		ev, err := Parse(c.agent, c.args, []byte(c.input), false)
		if c.unkwn {
			if !errors.Is(err, ErrUnknown) {
				t.Errorf("%s %s %q: err %v, want ErrUnknown", c.agent, c.input, c.args, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %s %q: %v", c.agent, c.input, c.args, err)
			continue
		}
		if ev.Reason != c.reason || ev.NoteEvent != c.note || ev.LastLine != c.lastLine || ev.Reply != c.reply || !slices.Equal(ev.Names, c.names) {
			t.Errorf("%s %s %q:\n got reason %q note %q lastLine %v names %q\nwant reason %q note %q lastLine %v names %q",
				c.agent, c.input, c.args, ev.Reason, ev.NoteEvent, ev.LastLine, ev.Names, c.reason, c.note, c.lastLine, c.names)
		}
	}
}

func TestParseRejectsGarbage(t *testing.T) {
	for _, in := range []string{"", "null", "[]", `{"a":1}`, "{", `{"hook_event_name":5}`, "\x00\xff"} {
		if _, err := Parse(Claude, nil, []byte(in), false); err == nil {
			t.Errorf("Parse(%q) took it as an event", in)
		}
	}
}

func TestTruncatedEvent(t *testing.T) {
	big := `{"session_id":"s","hook_event_name":"PostToolUse","effort":{"level":["a",{"b":1}]},"tool_name":"Write","tool_input":{"file_path":"/r/a","content":"` +
		strings.Repeat("x", 100)
	ev, err := Parse(Claude, nil, []byte(big), true)
	if err != nil {
		t.Fatal(err)
	}
	if ev.Reason != store.ReasonTool || ev.Tool != "Write" || ev.Session != "s" || len(ev.Names) != 0 || !ev.Truncated {
		t.Errorf("truncated Write: %+v", ev)
	}
	// A Copilot CLI subagent's write cut short still belongs to the
	// main session: its parent's id comes before the tool input.
	sub := `{"session_id":"sub","parent_agent_id":"main","hook_event_name":"PostToolUse","tool_name":"Write","tool_input":{"path":"/r/a","content":"` +
		strings.Repeat("x", 100)
	if ev, err := Parse(Copilot, nil, []byte(sub), true); err != nil || ev.Session != "main" || ev.Reason != store.ReasonTool {
		t.Errorf("truncated subagent Write: %+v, %v; want session main", ev, err)
	}
	if _, err := Parse(Claude, nil, []byte(strings.Repeat("x", 100)), true); err == nil {
		t.Error("truncated garbage was taken as an event")
	}
}

func TestRelative(t *testing.T) {
	top := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(top, link); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(top, "sub"), 0o755)
	names := []string{
		filepath.Join(top, "a.go"), "b.go", "../sub/c.go", filepath.Join(link, "sub", "gone.txt"),
		"/etc/passwd", filepath.Join(top, ".git", "config"), top, "../../x", filepath.Join(top, "a.go"),
	}
	paths, rejected := Relative(top, filepath.Join(top, "sub"), names)
	if want := []string{"a.go", "sub/b.go", "sub/c.go", "sub/gone.txt"}; !slices.Equal(paths, want) {
		t.Errorf("paths = %q, want %q", paths, want)
	}
	if want := []string{"/etc/passwd", filepath.Join(top, ".git", "config"), top, "../../x"}; !slices.Equal(rejected, want) {
		t.Errorf("rejected = %q, want %q", rejected, want)
	}
	if paths, rejected := Relative(top, "", []string{"rel.txt"}); len(paths) != 0 || len(rejected) != 1 {
		t.Errorf("a relative name without cwd: %q %q", paths, rejected)
	}
}

func TestLastLine(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	lines := `{"type":"user","uuid":"u1"}
{"type":"assistant","uuid":"a1"}
{"type":"assistant","uuid":"side","isSidechain":true}
{"type":"system","uuid":"s1"}
{"type":"summary"}
{"type":"assistant","uuid":"cut`
	os.WriteFile(path, []byte(lines), 0o644)
	if got, err := LastLine(ctx, path, ""); got != "a1" || err != nil {
		t.Errorf("LastLine = %q, %v; want a1", got, err)
	}
	if got, err := LastLine(ctx, filepath.Join(dir, "missing.jsonl"), "done"); got != "" || err != nil {
		t.Errorf("missing file: %q, %v", got, err)
	}
	os.WriteFile(filepath.Join(dir, "x.txt"), []byte(`{"type":"user","uuid":"u"}`), 0o644)
	if got, _ := LastLine(ctx, filepath.Join(dir, "x.txt"), ""); got != "" {
		t.Errorf("a file that is not .jsonl was read: %q", got)
	}
}

// A foreground subagent stops in the middle of the main agent's turn,
// while the main agent's call to it waits: no line there ends a turn.
func TestLastLineMidTurn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	for _, tail := range []string{
		`{"type":"assistant","uuid":"a1","message":{"content":[{"type":"text","text":"on it"},{"type":"tool_use","name":"Agent"}]}}`,
		`{"type":"user","uuid":"u2","message":{"content":[{"type":"tool_result"}]}}`,
	} {
		os.WriteFile(path, []byte(`{"type":"user","uuid":"u1","message":{"content":"do it"}}`+"\n"+tail+"\n"), 0o644)
		if got, err := LastLine(context.Background(), path, ""); got != "" || err != nil {
			t.Errorf("after %s: LastLine = %q, %v; want nothing", tail, got, err)
		}
	}
}

// At Stop, Claude Code may not have written the turn's last lines yet:
// LastLine waits for the final reply the event names.
func TestLastLineWaitsForTheReply(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(path, []byte(`{"type":"user","uuid":"u1","message":{"content":"do it"}}
{"type":"assistant","uuid":"a1","message":{"content":[{"type":"tool_use","name":"Bash"}]}}
`), 0o644)
	go func() {
		time.Sleep(100 * time.Millisecond)
		f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString(`{"type":"user","uuid":"u2","message":{"content":[{"type":"tool_result"}]}}
{"type":"assistant","uuid":"a2","message":{"content":[{"type":"text","text":"All done.\n"}]}}
{"type":"system","subtype":"stop_hook_summary","uuid":"s2"}
`)
		f.Close()
	}()
	if got, err := LastLine(context.Background(), path, "All done."); got != "a2" || err != nil {
		t.Errorf("LastLine = %q, %v; want a2", got, err)
	}

	// A final message of two text blocks, which the event joins.
	os.WriteFile(path, []byte(`{"type":"assistant","uuid":"a3","message":{"content":[{"type":"text","text":"First part."},{"type":"text","text":"Second part."}]}}`+"\n"), 0o644)
	if got, err := LastLine(context.Background(), path, "First part.\n\nSecond part."); got != "a3" || err != nil {
		t.Errorf("two text blocks: LastLine = %q, %v; want a3", got, err)
	}

	// A reply that never comes: no resume point rather than a wrong one.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if got, err := LastLine(ctx, path, "something else"); got != "" || err == nil {
		t.Errorf("LastLine = %q, %v; want nothing and an error", got, err)
	}
}

func TestNoteOnce(t *testing.T) {
	dir := t.TempDir()
	if _, ok := TakeNote(dir); ok {
		t.Fatal("a note without one written")
	}
	WriteNote(dir, "first")
	WriteNote(dir, "second")
	if text, ok := TakeNote(dir); !ok || text != "second" {
		t.Errorf("TakeNote = %q %v, want the newest note", text, ok)
	}
	if _, ok := TakeNote(dir); ok {
		t.Error("the note was given twice")
	}
	if got := string(Context(Claude, "UserPromptSubmit", "x \"y\"", "")); got != `{"hookSpecificOutput":{"additionalContext":"x \"y\"","hookEventName":"UserPromptSubmit"}}`+"\n" {
		t.Errorf("Context = %s", got)
	}
	if got := string(Context(Claude, "UserPromptSubmit", "", "m")); got != `{"systemMessage":"m"}`+"\n" {
		t.Errorf("Context with a message only = %s", got)
	}
	if got := Context(Claude, "UserPromptSubmit", "", ""); got != nil {
		t.Errorf("Context with nothing = %q, want nothing", got)
	}
	// Copilot CLI ignores hookSpecificOutput: the note goes at the top.
	if got := string(Context(Copilot, "UserPromptSubmit", "x", "")); got != `{"additionalContext":"x"}`+"\n" {
		t.Errorf("Context for Copilot CLI = %s", got)
	}
}

func TestLogStaysSmall(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i < 2000; i++ {
		Log(dir, time.Time{}, Claude, "Stop\nforged line", strings.Repeat("m", 200))
	}
	for _, name := range []string{"hook.log", "hook.log.1"} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil || fi.Size() > logLimit+2000 {
			t.Errorf("%s: %v, %d bytes", name, err, fi.Size())
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, "hook.log"))
	if strings.Contains(string(b), "\nforged") {
		t.Error("an event name broke a log line")
	}
}

func FuzzParse(f *testing.F) {
	f.Add("claude", `{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_response":{"bashEditDiff":{"changedFiles":["a"]}}}`, false)
	f.Add("codex", `{"hook_event_name":"PostToolUse","tool_name":"apply_patch","tool_input":{"command":"*** Add File: x"}}`, true)
	f.Add("gemini", `{"hook_event_name":"AfterTool","tool_name":"write_file","tool_input":{"file_path":"/a"}}`, false)
	f.Fuzz(func(t *testing.T, agent, input string, truncated bool) {
		ev, err := Parse(agent, nil, []byte(input), truncated)
		if err == nil && ev == nil {
			t.Fatal("no event and no error")
		}
		if err == nil && ev.Reason == "" && len(ev.Names) > 0 {
			t.Fatal("names without a capture")
		}
	})
}

package agents

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// TestKimiPayloads reads the payloads Kimi Code 2.1.0 sent its hooks
// (testdata/kimi/, recorded by agenttest's TestKimi* against a fake
// model): what each one takes and the files it names. The prompt is a
// list of parts; Write and Edit name their file in path, Bash none; a
// subagent's write and Stop come in the main session.
func TestKimiPayloads(t *testing.T) {
	type want struct {
		reason, note, prompt, name string
		exact                      bool
	}
	cases := map[string][]want{
		"turn.jsonl": {
			{}, // SessionStart
			{reason: store.ReasonTurnStart, note: "UserPromptSubmit", prompt: "edit the files"},
			{}, {reason: store.ReasonTool, name: "written.txt", exact: true}, // Write
			{}, {reason: store.ReasonTool, name: "written.txt", exact: true}, // Edit
			{}, {reason: store.ReasonTool}, // Bash
			{reason: store.ReasonTurnEnd},
		},
		"failure.jsonl": {{reason: store.ReasonTool}},
		"subagent.jsonl": {
			{}, {reason: store.ReasonTurnStart, note: "UserPromptSubmit", prompt: "delegate"},
			{}, {}, // PreToolUse Agent, SubagentStart
			{}, {reason: store.ReasonTool, name: "sub.txt", exact: true}, // the subagent's Write
			{reason: store.ReasonTurnEnd}, // the subagent's Stop
			{},                            // SubagentStop
			{},                            // PostToolUse of Agent, which only reads
			{reason: store.ReasonTurnEnd},
		},
	}
	for file, wants := range cases {
		data, err := os.ReadFile(filepath.Join("testdata", "kimi", file))
		if err != nil {
			t.Fatal(err)
		}
		var session string
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, MaxInput)
		i := 0
		for sc.Scan() {
			line := sc.Bytes()
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			ev, err := Parse(Kimi, nil, line, false)
			if err != nil {
				t.Errorf("%s:%d: %v", file, i+1, err)
				i++
				continue
			}
			if i >= len(wants) {
				t.Errorf("%s: more payloads than cases: %s", file, line)
				break
			}
			w := wants[i]
			if session == "" {
				session = ev.Session
			}
			name := ""
			if len(ev.Names) == 1 {
				name = filepath.Base(ev.Names[0])
			}
			if ev.Reason != w.reason || ev.NoteEvent != w.note || ev.Prompt != w.prompt || name != w.name ||
				len(ev.Names) > 1 || ev.Exact != w.exact || ev.Session != session || !strings.HasPrefix(session, "session_") {
				t.Errorf("%s:%d (%s %s):\n got reason %q note %q prompt %q names %q exact %v session %q\nwant %+v",
					file, i+1, ev.Name, ev.Tool, ev.Reason, ev.NoteEvent, ev.Prompt, ev.Names, ev.Exact, ev.Session, w)
			}
			i++
		}
		if i != len(wants) {
			t.Errorf("%s: %d payloads, %d cases", file, i, len(wants))
		}
	}
}

// The note goes out as "message", which Kimi Code adds to the model's
// context; with no note the hook prints nothing, which it would add too.
func TestKimiContext(t *testing.T) {
	if got := string(Context(Kimi, "UserPromptSubmit", "NOTE", "untold")); got != `{"message":"NOTE"}`+"\n" {
		t.Errorf("with a note: %q", got)
	}
	if got := Context(Kimi, "UserPromptSubmit", "", "untold"); got != nil {
		t.Errorf("without a note: %q", got)
	}
}

// install appends the block to config.toml, keeping every other byte, and
// uninstall gives the file back byte for byte: with tables of the user's
// own, [[hooks]] of theirs, and no newline at the end.
func TestKimiInstallUninstall(t *testing.T) {
	for _, before := range []string{
		"",
		"default_model = \"k2\"\n\n[providers.moonshot]\ntype = \"kimi\"\n",
		"# mine\n[[hooks]]\nevent = \"Stop\"\ncommand = \"notify-send done\"",
	} {
		home := t.TempDir()
		env := Env{Home: home, Getenv: func(string) string { return "" }}
		path := filepath.Join(home, ".kimi-code", "config.toml")
		if before != "" {
			os.MkdirAll(filepath.Dir(path), 0o755)
			os.WriteFile(path, []byte(before), 0o644)
		}
		res, err := Install(Kimi, ScopeUser, env)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(path)
		if !strings.HasPrefix(string(got), before) || !strings.HasSuffix(string(got), kimiEnd+"\n") {
			t.Errorf("after install (%v):\n%s", res.Files, got)
		}
		if strings.Count(string(got), "[[hooks]]") != strings.Count(before, "[[hooks]]")+4 {
			t.Errorf("install wrote other than four hooks:\n%s", got)
		}
		if _, err := Install(Kimi, ScopeUser, env); err != nil {
			t.Fatal(err)
		}
		if again, _ := os.ReadFile(path); string(again) != string(got) {
			t.Errorf("a second install changed the file:\n%s", again)
		}
		if _, err := Uninstall(Kimi, ScopeUser, env); err != nil {
			t.Fatal(err)
		}
		after, err := os.ReadFile(path)
		if before == "" {
			if !os.IsNotExist(err) {
				t.Errorf("uninstall left the file install created: %q", after)
			}
			continue
		}
		if string(after) != before {
			t.Errorf("after uninstall:\n%q\nwant\n%q", after, before)
		}
	}
}

// hooks written as an inline list cannot take [[hooks]] tables: install
// refuses and changes nothing.
func TestKimiInlineHooks(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, ".kimi-code", "config.toml")
	os.MkdirAll(filepath.Dir(path), 0o755)
	before := "hooks = []\n"
	os.WriteFile(path, []byte(before), 0o644)
	_, err := Install(Kimi, ScopeUser, Env{Home: home, Getenv: func(string) string { return "" }})
	if err == nil || !strings.Contains(err.Error(), "inline list") {
		t.Errorf("install: %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != before {
		t.Errorf("install changed the file: %q", got)
	}
}

// TestKimiUninstallKeepsLinesAfter: install added a newline before its
// block to a file that had none at its end; a line the person wrote after
// the block must not be glued to the line before it when the block goes
// (by uninstall, or by the install that rewrites it).
func TestKimiUninstallKeepsLinesAfter(t *testing.T) {
	home := t.TempDir()
	env := Env{Home: home, Getenv: func(string) string { return "" }}
	path := filepath.Join(home, ".kimi-code", "config.toml")
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte("a = 1"), 0o644)
	if _, err := Install(Kimi, ScopeUser, env); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	os.WriteFile(path, append(got, "b = 2\n"...), 0o644)
	if _, err := Install(Kimi, ScopeUser, env); err != nil {
		t.Fatal(err)
	}
	if _, err := Uninstall(Kimi, ScopeUser, env); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(path); string(after) != "a = 1\nb = 2\n" {
		t.Errorf("after a reinstall and uninstall: %q, want %q", after, "a = 1\nb = 2\n")
	}
}

// TestKimiMCP: install --mcp writes the server where Kimi Code 2.1 reads
// it (loadMcpServers: mcpServers of the user's mcp.json and of the
// .kimi-code/mcp.json of the directory it starts in; an entry with a
// command is a stdio server), in the shape TestAgents/kimi-mcp drives.
// A file of the tree is read only in a folder the person trusted, which
// install says; the user's file is read everywhere.
func TestKimiMCP(t *testing.T) {
	const want = "{\n  \"mcpServers\": {\n    \"git-checkpoint\": {\n      \"command\": \"git-checkpoint\",\n" +
		"      \"args\": [\n        \"mcp\"\n      ]\n    }\n  }\n}\n"
	top, home := t.TempDir(), t.TempDir()
	env := Env{Top: top, Home: home, Getenv: func(string) string { return "" }}
	for _, c := range []struct {
		scope, path string
		notes       []string
	}{
		{ScopeLocal, filepath.Join(top, ".kimi-code", "mcp.json"), []string{kimiTrust}},
		{ScopeProject, filepath.Join(top, ".kimi-code", "mcp.json"), []string{kimiTrust}},
		{ScopeUser, filepath.Join(home, ".kimi-code", "mcp.json"), nil},
	} {
		res, err := InstallMCP(Kimi, c.scope, env)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(c.path); string(got) != want {
			t.Errorf("%s: %s holds\n%s\nwant\n%s", c.scope, c.path, got, want)
		}
		if strings.Join(res.Notes, "\n") != strings.Join(c.notes, "\n") {
			t.Errorf("%s: notes %q, want %q", c.scope, res.Notes, c.notes)
		}
		if _, err := UninstallMCP(Kimi, c.scope, env); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Dir(c.path)); !os.IsNotExist(err) {
			t.Errorf("%s: uninstall left %s: %v", c.scope, filepath.Dir(c.path), err)
		}
	}
}

package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/agenttest"
)

// kimiConfig is the person's ~/.kimi-code/config.toml before install: a
// provider, and a hook of their own, with no newline at the end. install
// appends its block; uninstall gives these bytes back.
const kimiConfig = `default_model = "k2"

[providers.moonshot]
type = "kimi"

[[hooks]]
event = "Stop"
command = "true"`

// kimiThinks is a turn's last reply, which takes a moment as a real
// model's does: Kimi Code does not wait for PostToolUse hooks, and kills
// those still running when the turn's last reply comes.
func kimiThinks(text string) agenttest.Step {
	return agenttest.Step{Text: text, Wait: func() { time.Sleep(2 * time.Second) }}
}

// kimiStory: Kimi Code 2.1, with the hooks `git checkpoint install kimi`
// appends to ~/.kimi-code/config.toml, run in prompt mode (kimi -p)
// against a fake OpenAI Chat Completions server. One turn writes a file,
// edits it and runs shellEdit, which creates, deletes and appends; its
// start, each tool and its end are checkpoints of one session, with the
// files Write and Edit name. `git rewind t1` undoes the turn, files only:
// the next prompt of the session (kimi -r) gives the model the note. A
// second run of install changes nothing, and uninstall gives the
// person's config back byte for byte.
func kimiStory(t *testing.T, tools string) {
	f := newFixture(t, tools)
	before := f.manifest()
	config := filepath.Join(f.home, ".kimi-code", "config.toml")
	if err := os.MkdirAll(filepath.Dir(config), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(config, []byte(kimiConfig), 0o644); err != nil {
		t.Fatal(err)
	}

	res := f.exits(0, "git", "checkpoint", "install", "kimi")
	wantOutput(t, res, "updated   ~/.kimi-code/config.toml\n"+
		"note: Kimi Code reads hooks from ~/.kimi-code/config.toml only: they run in every project it starts in, "+
		"and do nothing outside a git working tree\n", "")
	installed, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	f.exits(0, "git", "checkpoint", "install", "kimi")
	if again, _ := os.ReadFile(config); string(again) != string(installed) {
		t.Errorf("a second install changed config.toml:\n%s", again)
	}

	srv := agenttest.NewChatServer(t, agenttest.Script{Steps: []agenttest.Step{
		agenttest.Do(agenttest.KimiWrite(f.path("written.txt"), "WRITTEN by the agent\n")),
		agenttest.Do(agenttest.KimiEdit(f.path("written.txt"), "WRITTEN", "written")),
		agenttest.Do(agenttest.KimiBash(shellEdit)),
		kimiThinks("TURN-ONE-DONE"),
		agenttest.Say("NEXT-REPLY"),
	}})
	run := agenttest.Run{Dir: f.dir, Home: f.home, URL: srv.URL, Env: f.env, Prompt: "TURN-ONE: edit the files"}
	first := agenttest.RunKimi(t, run)
	f.ran(first, srv)
	session := agenttest.KimiSession(first.Stdout)
	if session == "" {
		t.Fatalf("no session in Kimi Code's output:\n%s", first)
	}
	f.turnOneDone()
	// Kimi Code does not wait for a PostToolUse hook: the tools' hooks
	// may run in any order, and one that runs after the next tool's full
	// scan reuses the checkpoint that scan made, which holds its change.
	// Which tool calls were recorded, in any order, between the turn's
	// start and its end, is what is checked here.
	turn1 := boundaries(t, f.journal(), session, "kimi")
	if len(turn1) < 2 {
		t.Fatalf("turn 1's journal: %q, want its start, its tool calls and its end", turn1)
	}
	sameLines(t, "turn 1's boundaries", []string{turn1[0], turn1[len(turn1)-1]}, []string{"turn_start t1", "turn_end t1 (reused)"})
	var calls []string
	for _, line := range turn1[1 : len(turn1)-1] {
		calls = append(calls, strings.TrimSuffix(line, " (reused)"))
	}
	slices.Sort(calls)
	sameLines(t, "turn 1's tool calls", calls, []string{
		"tool t1 Bash", // Kimi Code's Bash names no files
		"tool t1 Edit written.txt",
		"tool t1 Write written.txt",
	})
	if log := f.exits(0, "git", "checkpoint", "log").stdout; !strings.Contains(log, "TURN-ONE: edit the files") {
		t.Errorf("git checkpoint log lacks the prompt:\n%s", log)
	}

	// the turn undone, files only; the config, outside the tree, stays
	f.rewindsTurnOne(before)
	if got, _ := os.ReadFile(config); string(got) != string(installed) {
		t.Errorf("the rewind changed config.toml:\n%s", got)
	}

	// the next prompt of the session: the model gets the note with it
	asked := len(srv.Steps())
	run.Prompt, run.Args = "AFTER-REWIND: carry on", []string{"--session", session}
	f.ran(agenttest.RunKimi(t, run), srv)
	steps := srv.Steps()
	if len(steps) <= asked || steps[asked].Step != 4 {
		t.Fatalf("the next request does not go on from turn 1:\n%s", srv.Dump())
	}
	body := string(steps[asked].Body)
	for _, s := range []string{"TURN-ONE-DONE", "AFTER-REWIND", noteFor("k1")} {
		if !strings.Contains(body, s) {
			t.Errorf("the next request lacks %q:\n%s", s, shorten(body))
		}
	}
	f.noteTaken()

	res = f.exits(0, "git", "checkpoint", "uninstall", "kimi")
	wantOutput(t, res, "updated   ~/.kimi-code/config.toml\n", "")
	if got, _ := os.ReadFile(config); string(got) != kimiConfig {
		t.Errorf("config.toml after uninstall:\n%q\nwant, as before install:\n%q", got, kimiConfig)
	}
}

// kimiTrustFolder: Kimi Code 2.1 reads .kimi-code/mcp.json, as install
// --mcp wrote it, in a folder nobody trusted yet (a home of its own: no
// hooks, no trust), and names the server in its warning, but starts it
// only once the person trusted the folder in its terminal interface: kimi
// -p offers the model none of its tools until then.
func kimiTrustFolder(t *testing.T, f *fixture) {
	srv := agenttest.NewChatServer(t, agenttest.Script{Steps: []agenttest.Step{agenttest.Say("UNTRUSTED")}})
	res := agenttest.RunKimi(t, agenttest.Run{Dir: f.dir, Home: t.TempDir(), URL: srv.URL, Env: f.env, Prompt: "LIST"})
	f.ran(res, srv)
	if want := "Warning: this folder is not trusted; skipped 1 project-level MCP server: " +
		"git-checkpoint (stdio: git-checkpoint mcp)."; !strings.Contains(res.Stderr, want) {
		t.Errorf("Kimi Code did not name the server it skipped (%q):\n%s", want, res)
	}
	if body := string(stepBodies(t, srv, 1)[0]); !strings.Contains(body, `"name":"Write"`) ||
		strings.Contains(body, "mcp__git-checkpoint__") {
		t.Errorf("an untrusted folder's request does not offer Kimi's tools without the server's:\n%s", shorten(body))
	}
	agenttest.KimiTrust(t, agenttest.Run{Dir: f.dir, Home: f.home, URL: srv.URL, Env: f.env})
}

package e2e

import (
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/agenttest"
)

// claudeTurnsStory: with the real Claude Code, two prompts are two turns
// that git checkpoint log lists with their prompts, newest first, and
// git rewind --only t1 reverses the first while keeping the second.
func claudeTurnsStory(t *testing.T, tools string) {
	f := newFixture(t, tools)
	f.exits(0, "git", "checkpoint", "install", "claude")
	script := agenttest.Script{Steps: []agenttest.Step{
		agenttest.Do(agenttest.ClaudeWrite(f.path("cache.go"), "package cache\n")),
		agenttest.Say("CACHE-DONE"),
		agenttest.Do(agenttest.ClaudeBash("echo '# notes' > notes.md")),
		agenttest.Say("NOTES-DONE"),
	}}
	srv := agenttest.NewClaudeServer(t, script)
	run := agenttest.Run{Dir: f.dir, Home: f.home, URL: srv.URL, Env: f.env}
	run.Prompt = "add a cache layer\nwith an LRU policy"
	first := agenttest.RunClaude(t, run)
	f.ran(first, srv)
	run.Prompt, run.Args = "write the notes", []string{"--resume", claudeSession(t, first)}
	f.ran(agenttest.RunClaude(t, run), srv)
	afterTurn2 := f.manifest()

	var log struct {
		Turns []struct {
			ID, Prompt, Start, End string
		} `json:"turns"`
	}
	f.exitsJSON(0, &log, "git", "checkpoint", "log", "--json")
	var got []string
	for _, tn := range log.Turns {
		got = append(got, tn.ID+" "+strings.ReplaceAll(tn.Prompt, "\n", `\n`))
	}
	sameLines(t, "git checkpoint log --json, newest first", got, []string{
		"t2 write the notes",
		`t1 add a cache layer\nwith an LRU policy`,
	})
	text := f.exits(0, "git", "checkpoint", "log")
	if i, j := strings.Index(text.stdout, "write the notes"), strings.Index(text.stdout, "add a cache layer"); i < 0 || j < 0 || i > j {
		t.Errorf("git checkpoint log does not list both prompts, newest first:\n%s", text.stdout)
	}
	if strings.Contains(text.stdout, "with an LRU policy") {
		t.Errorf("git checkpoint log shows more than the prompt's first line:\n%s", text.stdout)
	}

	f.exits(0, "git", "rewind", "--only", "t1", "--yes")
	want := merged(afterTurn2, nil)
	delete(want, "cache.go")
	f.sameTree("after git rewind --only t1", want)
	if got := f.read("notes.md"); got != "# notes\n" {
		t.Errorf("notes.md, written by turn 2: %q, want it kept", got)
	}
}

package e2e

import (
	"bufio"
	"encoding/json"
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/agenttest"
)

// copilotStory: GitHub Copilot CLI 1.0, with the hooks `git checkpoint
// install copilot` writes into .github/copilot/settings.local.json.
// Copilot CLI runs a repository's hooks only in a folder the person has
// trusted; the harness records the folder as trusted, as Copilot's trust
// dialog does. It speaks the Anthropic API to the fake model; a create is
// Write in the hooks' names. It resumes a session only by adding to it and
// forks one only from its interactive /fork.
func copilotStory(t *testing.T, tools string) {
	hookedStory(t, tools, hookedAgent{
		name: "copilot",
		install: "created   .github/copilot/settings.local.json\n" +
			"note: Copilot CLI runs a repository's hooks only in a folder it trusts: start 'copilot' here once and trust the folder\n",
		server: agenttest.NewClaudeServer, run: agenttest.RunCopilot, session: copilotSession,
		resume: func(session string) []string { return []string{"--resume=" + session} },
		write:  agenttest.CopilotCreate, shell: agenttest.CopilotBash, writeTool: "Write", shellTool: "Bash",
		afterTurnOne: func(f *fixture) {
			var log struct {
				Turns []struct{ Turn, Prompt string }
			}
			f.exitsJSON(0, &log, "git", "checkpoint", "log", "--json")
			if len(log.Turns) != 1 || log.Turns[0].Prompt != "TURN-ONE: edit the files" {
				f.t.Errorf("git checkpoint log --json: turns %+v, want t1 with the prompt", log.Turns)
			}
		},
	})
}

// copilotSubagentStory: a Copilot CLI subagent (its task tool, Agent in
// the hooks' names) writes a file in the middle of a turn. Copilot CLI
// sends the subagent's events as a session of its own, with a prompt and
// a Stop: they must neither start nor end a turn, and its write belongs
// to the main turn, which SubagentStop and Stop end. A bare rewind undoes
// the whole turn, the subagent's file too.
func copilotSubagentStory(t *testing.T, tools string) {
	f := newFixture(t, tools)
	f.exits(0, "git", "checkpoint", "install", "copilot")
	before := f.manifest()
	srv := agenttest.NewClaudeServer(t, agenttest.Script{
		Steps: []agenttest.Step{
			agenttest.Do(agenttest.CopilotTask("helper", "SUBTASK-7: write sub.txt")),
			agenttest.Do(agenttest.CopilotCreate(f.path("main.txt"), "main\n")),
			agenttest.Say("TURN-ONE-DONE"),
		},
		Sub: map[string][]agenttest.Step{"SUBTASK-7": {
			agenttest.Do(agenttest.CopilotCreate(f.path("sub.txt"), "sub\n")),
			agenttest.Say("Subagent finished."),
		}},
	})
	res := agenttest.RunCopilot(t, agenttest.Run{Dir: f.dir, Home: f.home, URL: srv.URL, Env: f.env,
		Prompt: "TURN-ONE: start a helper"})
	f.ran(res, srv)
	session := copilotSession(t, res)
	sameLines(t, "journal", boundaries(t, f.journal(), session, "copilot"), []string{
		"turn_start t1",
		"tool t1 Write sub.txt", // the subagent's, in the main session's turn
		"turn_end t1 (reused)",  // SubagentStop
		"tool t1 Write main.txt",
		"turn_end t1 (reused)", // Stop
	})
	for _, name := range []string{"sub.txt", "main.txt"} {
		if got := f.read(name); got == "" {
			t.Errorf("%s is empty", name)
		}
	}
	res2 := f.exits(0, "git", "rewind", "--yes")
	if first, _, _ := strings.Cut(res2.stdout, "\n"); first != "rewound to k1" {
		t.Errorf("git rewind --yes: %q, want \"rewound to k1\", the start of t1\n%s", first, res2.stdout)
	}
	f.sameTree("after git rewind --yes", before)
}

// copilotSession returns the session id of Copilot CLI's JSON output: its
// last line, of type "result", names it.
func copilotSession(t *testing.T, res *agenttest.Result) string {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(res.Stdout))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var line struct {
			Type      string `json:"type"`
			SessionID string `json:"sessionId"`
		}
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Type == "result" && line.SessionID != "" {
			return line.SessionID
		}
	}
	t.Fatalf("no session id in Copilot CLI's output:\n%s", res)
	return ""
}

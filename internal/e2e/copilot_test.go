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
// dialog does.
func copilotStory(t *testing.T, tools string) {
	f := newFixture(t, tools)

	// install, as the README says
	res := f.exits(0, "git", "checkpoint", "install", "copilot")
	wantOutput(t, res, "created   .github/copilot/settings.local.json\n"+
		"note: Copilot CLI runs a repository's hooks only in a folder it trusts: start 'copilot' here once and trust the folder\n", "")
	before := f.manifest()

	// turn 1: a create (Write, in the hooks' names) and a shell command;
	// turn 2 (the session resumed with --resume): another create
	srv := agenttest.NewClaudeServer(t, agenttest.Script{Steps: []agenttest.Step{
		agenttest.Do(agenttest.CopilotCreate(f.path("written.txt"), "written by the agent\n")),
		agenttest.Do(agenttest.CopilotBash(shellEdit)),
		agenttest.Say("TURN-ONE-DONE"),
		agenttest.Do(agenttest.CopilotCreate(f.path("second.txt"), "second\n")),
		agenttest.Say("TURN-TWO-DONE"),
	}})
	run := agenttest.Run{Dir: f.dir, Home: f.home, URL: srv.URL, Env: f.env}
	run.Prompt = "TURN-ONE: edit the files"
	first := agenttest.RunCopilot(t, run)
	f.ran(first, srv)
	session := copilotSession(t, first)
	f.turnOneDone()
	sameLines(t, "journal of turn 1", boundaries(t, f.journal(), session, "copilot"), []string{
		"turn_start t1",
		"tool t1 Write written.txt",
		"tool t1 Bash", // Copilot CLI does not say which files a command changed
		"turn_end t1 (reused)",
	})
	var log struct {
		Turns []struct{ Turn, Prompt string }
	}
	f.exitsJSON(0, &log, "git", "checkpoint", "log", "--json")
	if len(log.Turns) != 1 || log.Turns[0].Prompt != "TURN-ONE: edit the files" {
		t.Errorf("git checkpoint log --json: turns %+v, want t1 with the prompt", log.Turns)
	}

	// a person's edit between the turns
	f.write("person.txt", personEdit)
	beforeTurn2 := f.manifest()

	run.Prompt, run.Args = "TURN-TWO: once more", []string{"--resume=" + session}
	second := agenttest.RunCopilot(t, run)
	f.ran(second, srv)
	if got := copilotSession(t, second); got != session {
		t.Fatalf("the resumed run is session %s, want %s", got, session)
	}
	sameLines(t, "journal of turn 2", boundaries(t, fromTurn(f.journal(), "t2"), session, "copilot"), []string{
		"turn_start t2",
		"tool t2 Write second.txt",
		"turn_end t2 (reused)",
	})
	sameLines(t, "git checkpoint list", listed(t, f.list(), session, "copilot"), []string{
		"k1 turn_start t1",
		"k2 tool t1 Write",
		"k3 tool t1 Bash",
		"k4 turn_start t2",
		"k5 tool t2 Write",
	})

	// rewind to the start of turn 2. Copilot CLI resumes a session only by
	// adding to it and forks one only from its interactive /fork: no
	// command is printed.
	res = f.exits(0, "git", "rewind", "t2", "--yes")
	wantOutput(t, res, "rewound to k4\n"+
		"  delete agent        second.txt\n"+
		"1 path: 1 delete\n"+
		"safety checkpoint k6; undo with: git rewind --undo\n", "")
	f.sameTree("after git rewind t2", beforeTurn2)

	f.rewindToStart(before)

	// the next prompt of the session: the model gets the note with it
	next := agenttest.NewClaudeServer(t, agenttest.Script{Steps: append(make([]agenttest.Step, 5), agenttest.Say("NEXT-REPLY"))})
	run.URL, run.Prompt = next.URL, "AFTER-REWIND: carry on"
	third := agenttest.RunCopilot(t, run)
	f.ran(third, next)
	body := firstStep(t, next, 5)
	for _, s := range []string{"TURN-TWO", "AFTER-REWIND", noteFor("k1") + ", the start of turn t1"} {
		if !strings.Contains(body, s) {
			t.Errorf("the next request lacks %q:\n%s", s, shorten(body))
		}
	}
	f.noteTaken()

	// two more turns of the session: the first ends with a create, which
	// the second's start reuses; the second runs a command. A bare rewind
	// undoes the second alone.
	more := agenttest.NewClaudeServer(t, agenttest.Script{Steps: append(make([]agenttest.Step, 6),
		agenttest.Do(agenttest.CopilotCreate(f.path(keptFile), keptContent)),
		agenttest.Say("KEEP-DONE"),
		agenttest.Do(agenttest.CopilotBash(shellMake)),
		agenttest.Say("MAKE-DONE"),
	)})
	run.URL, run.Prompt = more.URL, "KEEP: write a file"
	f.ran(agenttest.RunCopilot(t, run), more)
	firstStep(t, more, 6)
	afterKeep := f.manifest()
	run.Prompt = "MAKE: run a command"
	f.ran(agenttest.RunCopilot(t, run), more)
	sameLines(t, "journal of turns 4 and 5", boundaries(t, fromTurn(f.journal(), "t4"), session, "copilot"), []string{
		"turn_start t4 (reused)",
		"tool t4 Write " + keptFile,
		"turn_end t4 (reused)",
		"turn_start t5 (reused)", // the create's checkpoint, a partial one
		"tool t5 Bash",
		"turn_end t5 (reused)",
	})
	f.bareRewindUndoesLatestTurn("t5", true, afterKeep)
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

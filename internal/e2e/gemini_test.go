package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/agenttest"
)

// geminiStory: Gemini CLI 0.61, with the hooks `git checkpoint install
// gemini` writes into .gemini/settings.json. Gemini CLI reads that file
// only in a folder it trusts; the harness trusts the workspace with
// GEMINI_CLI_TRUST_WORKSPACE=true.
func geminiStory(t *testing.T, tools string) {
	f := newFixture(t, tools)

	// install, as the README says
	res := f.exits(0, "git", "checkpoint", "install", "gemini")
	wantOutput(t, res, "created   .gemini/settings.json\n"+
		"note: Gemini CLI reads .gemini/settings.json only in a folder it trusts\n", "")
	before := f.manifest()

	// turn 1: a write_file and a shell command; turn 2 (the session
	// resumed with --resume latest): another write_file
	srv := agenttest.NewGeminiServer(t, agenttest.Script{Steps: []agenttest.Step{
		agenttest.Do(agenttest.GeminiWriteFile(f.path("written.txt"), "written by the agent\n")),
		agenttest.Do(agenttest.GeminiShell(shellEdit)),
		agenttest.Say("TURN-ONE-DONE"),
		agenttest.Do(agenttest.GeminiWriteFile(f.path("second.txt"), "second\n")),
		agenttest.Say("TURN-TWO-DONE"),
	}})
	run := agenttest.Run{Dir: f.dir, Home: f.home, URL: srv.URL, Env: f.env}
	run.Prompt = "TURN-ONE: edit the files"
	first := agenttest.RunGemini(t, run)
	f.ran(first, srv)
	session := geminiSession(t, first)
	f.turnOneDone()
	sameLines(t, "journal of turn 1", boundaries(t, f.journal(), session, "gemini"), []string{
		"turn_start t1",
		"tool t1 write_file written.txt",
		"tool t1 run_shell_command", // Gemini CLI does not say which files a command changed
		"turn_end t1 (reused)",
	})

	// a person's edit between the turns
	f.write("person.txt", personEdit)
	beforeTurn2 := f.manifest()

	run.Prompt, run.Args = "TURN-TWO: once more", []string{"--resume", "latest"}
	second := agenttest.RunGemini(t, run)
	f.ran(second, srv)
	if got := geminiSession(t, second); got != session {
		t.Fatalf("the resumed run is session %s, want %s", got, session)
	}
	sameLines(t, "journal of turn 2", boundaries(t, fromTurn(f.journal(), "t2"), session, "gemini"), []string{
		"turn_start t2",
		"tool t2 write_file second.txt",
		"turn_end t2 (reused)",
	})
	sameLines(t, "git checkpoint list", listed(t, f.list(), session, "gemini"), []string{
		"k1 turn_start t1",
		"k2 tool t1 write_file",
		"k3 tool t1 run_shell_command",
		"k4 turn_start t2",
		"k5 tool t2 write_file",
	})

	// rewind to the start of turn 2. Turn 1 had ended there, but Gemini
	// CLI resumes a session only by adding to it, which would change the
	// original: no command is printed.
	res = f.exits(0, "git", "rewind", "t2", "--yes")
	wantOutput(t, res, "rewound to k4\n"+
		"  delete agent        second.txt\n"+
		"1 path: 1 delete\n"+
		"safety checkpoint k6; undo with: git rewind --undo\n", "")
	f.sameTree("after git rewind t2", beforeTurn2)

	f.rewindToStart(before)

	// the next prompt of the session: the model gets the note with it
	next := agenttest.NewGeminiServer(t, agenttest.Script{Steps: append(make([]agenttest.Step, 5), agenttest.Say("NEXT-REPLY"))})
	run.URL, run.Prompt = next.URL, "AFTER-REWIND: carry on"
	third := agenttest.RunGemini(t, run)
	f.ran(third, next)
	body := firstStep(t, next, 5)
	for _, s := range []string{"TURN-TWO", "AFTER-REWIND", noteFor("k1") + ", the start of turn t1"} {
		if !strings.Contains(body, s) {
			t.Errorf("the next request lacks %q:\n%s", s, shorten(body))
		}
	}
	f.noteTaken()

	// two more turns of the session: the first ends with a write_file,
	// which the second's start reuses; the second runs a command. A bare
	// rewind undoes the second alone.
	more := agenttest.NewGeminiServer(t, agenttest.Script{Steps: append(make([]agenttest.Step, 6),
		agenttest.Do(agenttest.GeminiWriteFile(f.path(keptFile), keptContent)),
		agenttest.Say("KEEP-DONE"),
		agenttest.Do(agenttest.GeminiShell(shellMake)),
		agenttest.Say("MAKE-DONE"),
	)})
	run.URL, run.Prompt = more.URL, "KEEP: write a file"
	f.ran(agenttest.RunGemini(t, run), more)
	firstStep(t, more, 6)
	afterKeep := f.manifest()
	run.Prompt = "MAKE: run a command"
	f.ran(agenttest.RunGemini(t, run), more)
	sameLines(t, "journal of turns 4 and 5", boundaries(t, fromTurn(f.journal(), "t4"), session, "gemini"), []string{
		"turn_start t4 (reused)",
		"tool t4 write_file " + keptFile,
		"turn_end t4 (reused)",
		"turn_start t5 (reused)", // the write_file's checkpoint, a partial one
		"tool t5 run_shell_command",
		"turn_end t5 (reused)",
	})
	f.bareRewindUndoesLatestTurn("t5", true, afterKeep)
}

// geminiSession returns the session id Gemini CLI reports in its JSON
// output.
func geminiSession(t *testing.T, res *agenttest.Result) string {
	t.Helper()
	var out struct {
		SessionID string `json:"session_id"`
	}
	if json.Unmarshal([]byte(res.Stdout), &out) != nil || out.SessionID == "" {
		t.Fatalf("no session id in Gemini CLI's output:\n%s", res)
	}
	return out.SessionID
}

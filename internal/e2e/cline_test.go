package e2e

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/agenttest"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// clineStory: Cline CLI 3.0, with the executables `git checkpoint
// install cline` writes into .clinerules/hooks/, run headless (cline
// --json) against a fake OpenAI Chat Completions server. One turn creates
// a file with editor, edits it, and runs shellEdit, which creates,
// deletes and appends, with run_commands; its start, each tool and its
// end are checkpoints of one session, editor's partial, with its file. A
// second turn creates another file: a second task, in a session of its
// own, since `cline --id` continues a session only in Cline's terminal
// interface. A bare rewind undoes the second turn, `git rewind t1` the
// first, keeping the hooks; uninstall leaves the tree as it was before
// install.
//
// Cline awaits PostToolUse but runs TaskStart and TaskComplete detached:
// the model here answers a turn's first request once the turn's start is
// in the journal (clineThinks), as a real model takes longer than the
// hook does; the turn's end, which may come after cline exited, is
// waited for the same way, bounded.
func clineStory(t *testing.T, tools string) {
	f := newFixture(t, tools)
	before := f.manifest()

	res := f.exits(0, "git", "checkpoint", "install", "cline")
	var created string
	for _, e := range []string{"TaskStart", "TaskResume", "PostToolUse", "TaskComplete", "TaskCancel", "TaskError"} {
		created += "created   .clinerules/hooks/" + e + "\n"
	}
	wantOutput(t, res, created+"note: Cline runs TaskStart and TaskComplete without waiting for them: "+
		"a turn's start may be taken as its first tool already runs\n", "")
	installed := f.manifest()

	srv := agenttest.NewChatServer(t, agenttest.Script{Steps: []agenttest.Step{
		clineThinks(f, "t1", agenttest.ClineEditor(f.path("written.txt"), "WRITTEN by the agent\n")),
		agenttest.Do(agenttest.ClineReplace(f.path("written.txt"), "WRITTEN", "written")),
		agenttest.Do(agenttest.ClineCommands(shellEdit)),
		agenttest.Say("TURN-ONE-DONE"),
	}})
	run := agenttest.Run{Dir: f.dir, Home: f.home, URL: srv.URL, Env: f.env, Prompt: "TURN-ONE: edit the files"}
	first := agenttest.RunCline(t, run)
	f.ran(first, srv)
	f.turnOneDone()
	f.turnEnded("t1")
	recs := f.journal()
	session := recs[0].Session
	sameLines(t, "journal of turn 1", boundaries(t, recs, session, "cline"), []string{
		"turn_start t1",
		"tool t1 editor written.txt",
		"tool t1 editor written.txt",
		"tool t1 run_commands", // Cline's run_commands names no files
		"turn_end t1 (reused)",
	})
	for _, r := range f.list() {
		if r.Partial != (r.Tool == "editor") {
			t.Errorf("%s (%s %s %s): partial %v, want editor's alone partial", r.ID, r.Reason, r.Turn, r.Tool, r.Partial)
		}
	}
	afterTurn1 := f.manifest()

	// cline --id resumes a session only in Cline's terminal interface:
	// the second turn is a task of its own, as a person's next `cline
	// PROMPT` is
	next := agenttest.NewChatServer(t, agenttest.Script{Steps: []agenttest.Step{
		clineThinks(f, "t2", agenttest.ClineEditor(f.path("second.txt"), "second\n")),
		agenttest.Say("TURN-TWO-DONE"),
	}})
	run.URL, run.Prompt = next.URL, "TURN-TWO: once more"
	f.ran(agenttest.RunCline(t, run), next)
	f.turnEnded("t2")
	turn2 := fromTurn(f.journal(), "t2")
	if len(turn2) == 0 || turn2[0].Session == session {
		t.Fatalf("the second task's turn is not in a session of its own: %v", turn2)
	}
	sameLines(t, "journal of turn 2", boundaries(t, turn2, turn2[0].Session, "cline"), []string{
		"turn_start t2 (reused)",
		"tool t2 editor second.txt",
		"turn_end t2 (reused)",
	})

	// a bare rewind undoes turn 2, then t1 the first; the hooks stay
	f.rewindsBare(afterTurn1)
	f.rewindsTurnOne(installed)

	f.exits(0, "git", "checkpoint", "uninstall", "cline")
	f.sameTree("after uninstall", before)
}

// clineThinks is the first reply of a turn, making call: it comes once
// the turn's start is in the journal, or after ten seconds.
func clineThinks(f *fixture, turn string, call agenttest.Call) agenttest.Step {
	journal := filepath.Join(f.stateDir(), "journal.jsonl")
	return agenttest.Step{Calls: []agenttest.Call{call}, Wait: func() {
		waitRecord(journal, store.ReasonTurnStart, turn)
	}}
}

// turnEnded waits, up to ten seconds, for turn's end in the journal:
// Cline runs TaskComplete without waiting for it.
func (f *fixture) turnEnded(turn string) {
	f.t.Helper()
	if !waitRecord(filepath.Join(f.stateDir(), "journal.jsonl"), store.ReasonTurnEnd, turn) {
		f.t.Errorf("no end of turn %s in the journal after ten seconds\n--- hook.log\n%s", turn, f.hookLog())
	}
}

// waitRecord waits, up to ten seconds, for a checkpoint record of reason
// and turn in the journal file, and says whether one came. It fails no
// test, so that a model server's goroutine may call it.
func waitRecord(journal, reason, turn string) bool {
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		data, err := os.ReadFile(journal)
		if err != nil {
			continue
		}
		for _, ev := range store.ParseJournal(data).All() {
			if r := ev.Checkpoint; r != nil && r.Reason == reason && r.Turn == turn {
				return true
			}
		}
	}
	return false
}

package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/agenttest"
)

// claudeStory: Claude Code 2.1, with the hooks `git checkpoint install
// claude` writes into .claude/settings.local.json (Claude Code needs no
// further trust for them; -p runs skip the workspace trust dialog).
func claudeStory(t *testing.T, tools string) {
	f := newFixture(t, tools)

	// install, as the README says
	res := f.exits(0, "git", "checkpoint", "install", "claude")
	wantOutput(t, res, "created   .claude/settings.local.json\n"+
		"note: Claude Code reads project settings in the directory it starts in: start it at the top of the working tree\n", "")
	before := f.manifest()

	// turn 1: a Write, a shell command, a failing shell command (its
	// hook event is PostToolUseFailure, yet its file stays)
	// turn 2 (the same session, resumed): a background subagent that
	// writes after the main agent's Stop; its result comes back to the
	// main agent as a prompt of its own, turn 3
	script := agenttest.Script{
		Steps: []agenttest.Step{
			agenttest.Do(agenttest.ClaudeWrite(f.path("written.txt"), "written by the agent\n")),
			agenttest.Do(agenttest.ClaudeBash(shellEdit)),
			agenttest.Do(agenttest.ClaudeBash("echo partial > partial.txt; exit 3")),
			agenttest.Say("TURN-ONE-DONE"),
			agenttest.Do(agenttest.ClaudeAgent("helper", "SUBTASK-7: write sub.txt")),
			agenttest.Say("TURN-TWO-DONE"),
		},
		Sub: map[string][]agenttest.Step{"SUBTASK-7": {
			// Long enough for the main agent to stop first.
			agenttest.Do(agenttest.ClaudeBash("sleep 3")),
			agenttest.Do(agenttest.ClaudeWrite(f.path("sub.txt"), "sub\n")),
			agenttest.Say("Subagent finished."),
		}},
	}
	srv := agenttest.NewClaudeServer(t, script)
	run := agenttest.Run{Dir: f.dir, Home: f.home, URL: srv.URL, Env: f.env}
	run.Prompt = "TURN-ONE: edit the files"
	first := agenttest.RunClaude(t, run)
	f.ran(first, srv)
	session := claudeSession(t, first)
	f.turnOneDone()
	if got := f.read("partial.txt"); got != "partial\n" {
		t.Errorf("partial.txt, from the failing call: %q", got)
	}
	recs := f.journal()
	sameLines(t, "journal of turn 1", boundaries(t, recs, session, "claude"), []string{
		"turn_start t1",
		"tool t1 Write written.txt",
		"tool t1 Bash gone.txt,log.txt,new.txt", // bashEditDiff.changedFiles
		"tool t1 Bash",                          // the failing call names no files
		"turn_end t1 (reused)",                  // nothing changed after the last call
	})
	transcript := agenttest.ClaudeTranscript(f.home, f.dir, session)
	if len(recs) == 0 {
		t.Fatalf("no checkpoints after turn 1")
	}
	if end, want := recs[len(recs)-1], claudeLine(t, transcript, "TURN-ONE-DONE"); end.TranscriptAt != want {
		t.Errorf("turn 1 ended at transcript line %q, want %q, the final reply's", end.TranscriptAt, want)
	}

	// a person's edit between the turns
	f.write("person.txt", personEdit)
	beforeTurn2 := f.manifest()

	run.Prompt, run.Args = "TURN-TWO: start a helper", []string{"--resume", session}
	second := agenttest.RunClaude(t, run)
	f.ran(second, srv)
	if got := claudeSession(t, second); got != session {
		t.Fatalf("the resumed run is session %s, want %s", got, session)
	}
	sameLines(t, "journal of turns 2 and 3", boundaries(t, fromTurn(f.journal(), "t2"), session, "claude"), []string{
		"turn_start t2",
		"turn_end t2 (reused)", // the main agent's Stop
		"tool t2 Bash (reused)",
		"tool t2 Write sub.txt",  // the subagent's write, after the Stop, is turn 2's
		"turn_end t2 (reused)",   // SubagentStop
		"turn_start t3 (reused)", // the subagent's result, as a prompt
		"turn_end t3 (reused)",
	})
	sameLines(t, "git checkpoint list", listed(t, f.list(), session, "claude"), []string{
		"k1 turn_start t1",
		"k2 tool t1 Write",
		"k3 tool t1 Bash",
		"k4 tool t1 Bash",
		"k5 turn_start t2",
		"k6 tool t2 Write",
	})

	// rewind to the start of turn 2: the subagent's file goes; the
	// conversation resumes where it was when the tree was last like this,
	// after turn 2's Stop
	original, err := os.ReadFile(transcript)
	if err != nil {
		t.Fatal(err)
	}
	var rw rewindDoc
	f.exitsJSON(0, &rw, "git", "rewind", "t2", "--yes", "--json")
	rw.check(t, "k5", []string{"delete agent sub.txt"}, nil)
	f.sameTree("after git rewind t2", beforeTurn2)
	at := claudeLine(t, transcript, "TURN-TWO-DONE")
	rw.checkResume(t, "claude", "claude --resume "+session+" --resume-session-at "+at+" --fork-session")

	// the resume command, run as printed (with -p, against a fake model),
	// forks the conversation at that line: the model sees turns 1 and 2
	// (six replies) and not turn 3, gets the note about the rewind with
	// the new prompt, and the original transcript stays as it was
	fork := agenttest.NewClaudeServer(t, agenttest.Script{Steps: append(make([]agenttest.Step, 6), agenttest.Say("FORKED-REPLY"))})
	run.URL, run.Prompt, run.Args = fork.URL, "AFTER-REWIND: carry on", commandArgs(t, rw.Resume.Command, "claude")
	third := agenttest.RunClaude(t, run)
	f.ran(third, fork)
	if forked := claudeSession(t, third); forked == session {
		t.Errorf("the resumed conversation kept session %s: not a fork", session)
	}
	body := firstStep(t, fork, 6)
	for _, s := range []string{"TURN-ONE", "TURN-TWO", "SUBTASK-7", "AFTER-REWIND", noteFor("k5") + ", the start of turn t2"} {
		if !strings.Contains(body, s) {
			t.Errorf("the forked conversation's request lacks %q:\n%s", s, shorten(body))
		}
	}
	f.noteTaken()
	if strings.Contains(body, "Subagent finished.") {
		t.Errorf("the forked conversation's request holds turn 3:\n%s", shorten(body))
	}
	if now, _ := os.ReadFile(transcript); !bytes.Equal(now, original) {
		t.Errorf("resuming changed the original transcript")
	}
	if !strings.Contains(third.Stdout, "FORKED-REPLY") {
		t.Errorf("the forked run did not print the model's reply:\n%s", third)
	}

	f.rewindToStart(before)

	// two more turns of the forked conversation: the first ends with a
	// Write, which the second's start reuses; the second runs a command.
	// A bare rewind undoes the second alone.
	forked := claudeSession(t, third)
	more := agenttest.NewClaudeServer(t, agenttest.Script{Steps: append(make([]agenttest.Step, 7),
		agenttest.Do(agenttest.ClaudeWrite(f.path(keptFile), keptContent)),
		agenttest.Say("KEEP-DONE"),
		agenttest.Do(agenttest.ClaudeBash(shellMake)),
		agenttest.Say("MAKE-DONE"),
	)})
	run.URL, run.Prompt, run.Args = more.URL, "KEEP: write a file", []string{"--resume", forked}
	f.ran(agenttest.RunClaude(t, run), more)
	firstStep(t, more, 7)
	afterKeep := f.manifest()
	run.Prompt = "MAKE: run a command"
	f.ran(agenttest.RunClaude(t, run), more)
	sameLines(t, "journal of turns 5 and 6", boundaries(t, fromTurn(f.journal(), "t5"), forked, "claude"), []string{
		"turn_start t5 (reused)", // the tree the rewind to t1 left
		"tool t5 Write " + keptFile,
		"turn_end t5 (reused)",
		"turn_start t6 (reused)", // the Write's checkpoint, a partial one
		"tool t6 Bash " + madeFile,
		"turn_end t6 (reused)",
	})
	f.bareRewindUndoesLatestTurn("t6", true, afterKeep)
}

// claudeSession returns the session id Claude Code reports in its
// stream-json output.
func claudeSession(t *testing.T, res *agenttest.Result) string {
	t.Helper()
	for _, line := range strings.Split(res.Stdout, "\n") {
		var ev struct {
			Type, Subtype string
			SessionID     string `json:"session_id"`
		}
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Type == "system" && ev.Subtype == "init" && ev.SessionID != "" {
			return ev.SessionID
		}
	}
	t.Fatalf("no session id in Claude Code's output:\n%s", res)
	return ""
}

// claudeLine returns the uuid of the main conversation's assistant line in
// a transcript whose text is text.
func claudeLine(t *testing.T, transcript, text string) string {
	t.Helper()
	for _, l := range agenttest.ReadJSONL(t, transcript) {
		if l["type"] != "assistant" || l["isSidechain"] == true {
			continue
		}
		m, _ := l["message"].(map[string]any)
		blocks, _ := m["content"].([]any)
		for _, b := range blocks {
			if b, _ := b.(map[string]any); b["type"] == "text" && b["text"] == text {
				uuid, _ := l["uuid"].(string)
				return uuid
			}
		}
	}
	t.Fatalf("no assistant line %q in %s", text, transcript)
	return ""
}

// claudeForegroundStory: a subagent that runs in the foreground stops in
// the middle of the main agent's turn. Its SubagentStop ends nothing the
// conversation can be resumed at (the main agent's call still waits for
// its result), so a rewind to the tree it left offers no conversation.
func claudeForegroundStory(t *testing.T, tools string) {
	f := newFixture(t, tools)
	f.exits(0, "git", "checkpoint", "install", "claude")

	call := agenttest.ClaudeAgent("helper", "SUBTASK-8: write sub.txt")
	call.Args["run_in_background"] = false
	srv := agenttest.NewClaudeServer(t, agenttest.Script{
		Steps: []agenttest.Step{
			agenttest.Do(call),
			agenttest.Do(agenttest.ClaudeWrite(f.path("main.txt"), "main\n")),
			agenttest.Say("TURN-ONE-DONE"),
		},
		Sub: map[string][]agenttest.Step{"SUBTASK-8": {
			agenttest.Do(agenttest.ClaudeWrite(f.path("sub.txt"), "sub\n")),
			agenttest.Say("Subagent finished."),
		}},
	})
	res := agenttest.RunClaude(t, agenttest.Run{Dir: f.dir, Home: f.home, URL: srv.URL, Env: f.env, Prompt: "TURN-ONE: use a helper"})
	f.ran(res, srv)
	session := claudeSession(t, res)
	recs := f.journal()
	sameLines(t, "journal", boundaries(t, recs, session, "claude"), []string{
		"turn_start t1",
		"tool t1 Write sub.txt",
		"turn_end t1 (reused)", // SubagentStop, in the middle of the turn
		"tool t1 Write main.txt",
		"turn_end t1 (reused)", // Stop
	})
	if len(recs) != 5 {
		t.FailNow()
	}
	transcript := agenttest.ClaudeTranscript(f.home, f.dir, session)
	if at := recs[2].TranscriptAt; at != "" {
		t.Errorf("SubagentStop recorded transcript line %s, in the middle of the turn", at)
	}
	if at, want := recs[4].TranscriptAt, claudeLine(t, transcript, "TURN-ONE-DONE"); at != want {
		t.Errorf("Stop recorded transcript line %q, want %q, the final reply's", at, want)
	}

	var rw rewindDoc
	f.exitsJSON(0, &rw, "git", "rewind", "k2", "--yes", "--json")
	rw.check(t, "k2", []string{"delete agent main.txt"}, nil)
	rw.checkResume(t, "", "")
}

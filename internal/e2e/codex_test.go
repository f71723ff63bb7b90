package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/agenttest"
)

// codexStory: Codex CLI 0.169, with the hooks `git checkpoint install
// codex` writes into .codex/hooks.json and the notify block it adds to
// $CODEX_HOME/config.toml. Codex skips hooks nobody trusted; the harness
// trusts the project in its configuration and passes
// --dangerously-bypass-hook-trust, the flag install's note names for
// `codex exec`.
func codexStory(t *testing.T, tools string) {
	f := newFixture(t, tools)

	// install, as the README says
	res := f.exits(0, "git", "checkpoint", "install", "codex")
	wantOutput(t, res, "created   .codex/hooks.json\n"+
		"created   ~/.codex/config.toml\n"+
		"note: Codex runs hooks only once they are trusted: start 'codex' in this directory, trust the project, "+
		"and approve the new hooks when it asks (or with /hooks). 'codex exec' cannot ask: approve them interactively once, "+
		"or pass --dangerously-bypass-hook-trust. Until then notify (which needs no trust) still checkpoints the end of each turn\n", "")
	// The harness writes config.toml itself, with the fake model
	// provider: install's notify block goes into it as the user's own.
	config, err := os.ReadFile(filepath.Join(f.home, ".codex", "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	before := f.manifest()

	// turn 1: an apply_patch and a shell command; turn 2 (the session
	// resumed with `codex exec resume`): another apply_patch
	srv := agenttest.NewCodexServer(t, agenttest.Script{Steps: []agenttest.Step{
		agenttest.Do(agenttest.CodexPatch("*** Begin Patch\n*** Add File: written.txt\n+written by the agent\n*** End Patch\n")),
		agenttest.Do(agenttest.CodexShell(shellEdit)),
		agenttest.Say("TURN-ONE-DONE"),
		agenttest.Do(agenttest.CodexPatch("*** Begin Patch\n*** Add File: second.txt\n+second\n*** End Patch\n")),
		agenttest.Say("TURN-TWO-DONE"),
	}})
	run := agenttest.Run{Dir: f.dir, Home: f.home, URL: srv.URL, Env: f.env, Config: string(config)}
	run.Prompt = "TURN-ONE: edit the files"
	first := agenttest.RunCodex(t, run)
	f.ran(first, srv)
	session := codexThread(t, first)
	f.turnOneDone()
	sameLines(t, "journal of turn 1", boundaries(t, f.journal(), session, "codex"), []string{
		"turn_start t1",
		"tool t1 apply_patch written.txt",
		"tool t1 Bash", // Codex does not say which files a command changed
		"turn_end t1 (reused)",
		"turn_end t1 (reused)", // notify, after Stop
	})

	// a person's edit between the turns
	f.write("person.txt", personEdit)
	beforeTurn2 := f.manifest()

	run.Prompt, run.Args = "TURN-TWO: once more", []string{"resume", session}
	second := agenttest.RunCodex(t, run)
	f.ran(second, srv)
	if got := codexThread(t, second); got != session {
		t.Fatalf("the resumed run is thread %s, want %s", got, session)
	}
	afterTurn2 := f.manifest()
	sameLines(t, "journal of turn 2", boundaries(t, fromTurn(f.journal(), "t2"), session, "codex"), []string{
		"turn_start t2",
		"tool t2 apply_patch second.txt",
		"turn_end t2 (reused)",
		"turn_end t2 (reused)",
	})
	sameLines(t, "git checkpoint list", listed(t, f.list(), session, "codex"), []string{
		"k1 turn_start t1",
		"k2 tool t1 apply_patch",
		"k3 tool t1 Bash",
		"k4 turn_start t2",
		"k5 tool t2 apply_patch",
	})

	// rewind to the start of turn 2: Codex forks only whole sessions, and
	// this one went on past that point, so no command is printed
	f.rewindToTurnTwo(beforeTurn2)

	f.rewindToStart(before)

	// forward again, to the end of turn 2, the end of the session: its
	// fork is the conversation as it was there. Only rewinds changed these
	// paths since, so they are nobody's in particular.
	var rw rewindDoc
	f.exitsJSON(0, &rw, "git", "rewind", "k5", "--yes", "--json")
	rw.check(t, "k5", []string{
		"delete unattributed gone.txt",
		"modify unattributed log.txt",
		"create unattributed new.txt",
		"modify unattributed person.txt",
		"create unattributed second.txt",
		"create unattributed written.txt",
	}, nil)
	f.sameTree("after git rewind k5", afterTurn2)
	rw.checkResume(t, "codex", "codex fork "+session)

	// `codex fork S` opens Codex's terminal interface; `codex exec fork
	// S` is the same fork without one. The fork holds both turns (five
	// model replies), the model gets the note with the next prompt, and
	// the original session's rollout stays as it was.
	rollout := codexRollout(t, f.home, session)
	original, err := os.ReadFile(rollout)
	if err != nil {
		t.Fatal(err)
	}
	fork := agenttest.NewCodexServer(t, agenttest.Script{Steps: append(make([]agenttest.Step, 5), agenttest.Say("FORKED-REPLY"))})
	args := commandArgs(t, rw.Resume.Command, "codex")
	run.URL, run.Prompt, run.Args = fork.URL, "AFTER-REWIND: carry on", args
	third := agenttest.RunCodex(t, run)
	f.ran(third, fork)
	if forked := codexThread(t, third); forked == session {
		t.Errorf("the forked run kept thread %s", session)
	}
	body := firstStep(t, fork, 5)
	for _, s := range []string{"TURN-ONE", "TURN-TWO", "AFTER-REWIND", noteFor("k5")} {
		if !strings.Contains(body, s) {
			t.Errorf("the forked conversation's request lacks %q:\n%s", s, shorten(body))
		}
	}
	f.noteTaken()
	if now, _ := os.ReadFile(rollout); !bytes.Equal(now, original) {
		t.Errorf("forking changed the original session's rollout %s", rollout)
	}

	// two more turns of the fork: the first ends with an apply_patch,
	// which the second's start reuses; the second runs a command. A bare
	// rewind undoes the second alone. (Codex's patches are captured by a
	// full scan, so that start is a whole checkpoint.)
	forked := codexThread(t, third)
	more := agenttest.NewCodexServer(t, agenttest.Script{Steps: append(make([]agenttest.Step, 6),
		agenttest.Do(agenttest.CodexPatch("*** Begin Patch\n*** Add File: "+keptFile+"\n+"+strings.TrimSuffix(keptContent, "\n")+"\n*** End Patch\n")),
		agenttest.Say("KEEP-DONE"),
		agenttest.Do(agenttest.CodexShell(shellMake)),
		agenttest.Say("MAKE-DONE"),
	)})
	run.URL, run.Prompt, run.Args = more.URL, "KEEP: write a file", []string{"resume", forked}
	f.ran(agenttest.RunCodex(t, run), more)
	firstStep(t, more, 6)
	afterKeep := f.manifest()
	run.Prompt = "MAKE: run a command"
	f.ran(agenttest.RunCodex(t, run), more)
	sameLines(t, "journal of turns 4 and 5", boundaries(t, fromTurn(f.journal(), "t4"), forked, "codex"), []string{
		"turn_start t4 (reused)", // the tree the rewind to k5 left
		"tool t4 apply_patch " + keptFile,
		"turn_end t4 (reused)",
		"turn_end t4 (reused)",
		"turn_start t5 (reused)", // the apply_patch's checkpoint
		"tool t5 Bash",
		"turn_end t5 (reused)",
		"turn_end t5 (reused)",
	})
	f.bareRewindUndoesLatestTurn("t5", false, afterKeep)
}

// codexThread returns the thread (session) id Codex reports in its --json
// output.
func codexThread(t *testing.T, res *agenttest.Result) string {
	t.Helper()
	for _, line := range strings.Split(res.Stdout, "\n") {
		var ev struct {
			Type     string `json:"type"`
			ThreadID string `json:"thread_id"`
		}
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Type == "thread.started" && ev.ThreadID != "" {
			return ev.ThreadID
		}
	}
	t.Fatalf("no thread id in Codex's output:\n%s", res)
	return ""
}

// codexRollout returns the file in which Codex keeps a session:
// $CODEX_HOME/sessions/YYYY/MM/DD/rollout-TIME-SESSION.jsonl.
func codexRollout(t *testing.T, home, session string) string {
	t.Helper()
	found, _ := filepath.Glob(filepath.Join(home, ".codex", "sessions", "*", "*", "*", "rollout-*"+session+".jsonl"))
	if len(found) != 1 {
		t.Fatalf("the rollout of session %s: found %q", session, found)
	}
	return found[0]
}

package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/agents"
	"github.com/git-checkpoint/git-checkpoint/internal/agenttest"
)

// piStory: Pi 0.73, with the extension `git checkpoint install pi`
// writes into .pi/extensions/, run in print mode (pi -p) against a fake
// openai-completions provider. One turn writes a file (a path relative to
// the project, as models write them), then runs shellEdit, which creates,
// deletes and appends; the turn's start, each tool and its end are
// checkpoints of one session, the prompt is in the log, and the calls the
// extension made parse as the recorded fixtures do. After a person's edit,
// a rewind to the turn's end prints the fork command; the fork, run
// headless, gives the model the note about the rewind and writes a file;
// a bare rewind undoes it and `git rewind t1` the first turn, keeping the
// extension; uninstall leaves the tree as it was before install.
func piStory(t *testing.T, tools string) {
	f := newFixture(t, tools)
	before := f.manifest()

	res := f.exits(0, "git", "checkpoint", "install", "pi")
	wantOutput(t, res, "created   .pi/extensions/git-checkpoint.ts\n"+
		"note: Pi loads .pi/extensions in the directory it starts in: start it at the top of the working tree\n", "")
	installed := f.manifest()

	srv := agenttest.NewChatServer(t, agenttest.Script{Steps: []agenttest.Step{
		agenttest.Do(agenttest.PiWrite("written.txt", "WRITTEN by the agent\n")),
		agenttest.Do(agenttest.PiEdit(f.path("written.txt"), "WRITTEN", "written")),
		agenttest.Do(agenttest.PiBash(shellEdit)),
		agenttest.Say("TURN-ONE-DONE"),
		agenttest.Do(agenttest.PiWrite(f.path("second.txt"), "second\n")),
		agenttest.Say("TURN-TWO-DONE"),
	}})
	calls := filepath.Join(t.TempDir(), "calls.log")
	run := agenttest.Run{Dir: f.dir, Home: f.home, URL: srv.URL, Env: append(f.env, recordingPath(t, f, tools, calls))}
	run.Prompt = "TURN-ONE: edit the files"
	first := agenttest.RunPi(t, run)
	f.ran(first, srv)
	f.turnOneDone()
	session := f.journal()[0].Session
	sameLines(t, "journal of turn 1", boundaries(t, f.journal(), session, "pi"), []string{
		"turn_start t1",
		"tool t1 write written.txt",
		"tool t1 edit written.txt",
		"tool t1 bash", // Pi's bash names no files
		"turn_end t1 (reused)",
	})
	if log := f.exits(0, "git", "checkpoint", "log").stdout; !strings.Contains(log, "TURN-ONE: edit the files") {
		t.Errorf("git checkpoint log lacks the prompt:\n%s", log)
	}
	piCalls(t, f, calls, session)
	afterTurn1 := f.manifest()

	// at the end of the session's last turn, after a person's edit: the
	// fork command, and a note for the model
	f.write("person.txt", personEdit)
	end := f.journal()[4].ID
	var doc rewindDoc
	f.exitsJSON(0, &doc, "git", "rewind", end, "--yes", "--json", "--outside=overwrite")
	doc.check(t, end, []string{"modify outside person.txt"}, nil)
	doc.checkResume(t, "pi", "pi --fork "+session)
	f.sameTree("after git rewind "+end, afterTurn1)

	// the same fork, headless: a new session holding turn 1, whose first
	// request carries the note
	run.Prompt, run.Args = "TURN-TWO: once more", commandArgs(t, doc.Resume.Command, "pi")
	asked := len(srv.Steps())
	second := agenttest.RunPi(t, run)
	f.ran(second, srv)
	steps := srv.Steps()
	if len(steps) <= asked || steps[asked].Step != 4 {
		t.Fatalf("the fork's first request does not go on from turn 1:\n%s", srv.Dump())
	}
	for _, s := range []string{"TURN-ONE-DONE", "TURN-TWO", noteFor(end)} {
		if !strings.Contains(string(steps[asked].Body), s) {
			t.Errorf("the fork's first request lacks %q:\n%s", s, shorten(string(steps[asked].Body)))
		}
	}
	f.noteTaken()
	fork := fromTurn(f.journal(), "t2")
	if len(fork) == 0 || fork[0].Session == session {
		t.Fatalf("the fork's turn is not in a session of its own: %v", fork)
	}
	sameLines(t, "journal of the fork", boundaries(t, fork, fork[0].Session, "pi"), []string{
		"turn_start t2 (reused)",
		"tool t2 write second.txt",
		"turn_end t2 (reused)",
	})

	// a bare rewind undoes the fork's turn, then t1 undoes the first; the
	// extension stays
	f.rewindsBare(afterTurn1)
	f.rewindsTurnOne(installed)

	res = f.exits(0, "git", "checkpoint", "uninstall", "pi")
	wantOutput(t, res, "removed   .pi/extensions/git-checkpoint.ts\n", "")
	f.sameTree("after uninstall", before)
}

// recordingPath returns the PATH entry of the agent's environment that
// puts, before the fixture's, a git-checkpoint that appends the JSON of
// each `git-checkpoint hook pi` call and an empty line to log, then runs
// the one in tools on it.
func recordingPath(t *testing.T, f *fixture, tools, log string) string {
	t.Helper()
	dir := t.TempDir()
	path := os.Getenv("PATH")
	for _, kv := range f.env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	bin := agenttest.ShellQuote(filepath.Join(tools, "git-checkpoint"))
	script := "#!/bin/sh\nif [ \"$1 $2\" = 'hook pi' ]; then\n" +
		"  in=$(mktemp) && cat > \"$in\" && { cat \"$in\"; echo; echo; } >> " + agenttest.ShellQuote(log) + "\n" +
		"  " + bin + " \"$@\" < \"$in\"; rc=$?; rm -f \"$in\"; exit $rc\nfi\n" +
		"exec " + bin + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(dir, "git-checkpoint"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return "PATH=" + dir + string(os.PathListSeparator) + path
}

// piCalls checks the calls the extension made in turn 1 against what the
// recorded fixtures (internal/agents/testdata/pi) hold: the same events,
// in order, read the same way, with the same fields. With
// GIT_CHECKPOINT_RECORD_PI set to a directory, the calls are written
// there, paths rewritten to /home/dev/lab, to renew the fixtures.
func piCalls(t *testing.T, f *fixture, log, session string) {
	t.Helper()
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatalf("the extension called no hook: %v", err)
	}
	var got []string
	for i, body := range strings.Split(strings.TrimSpace(string(b)), "\n\n") {
		ev, err := agents.Parse(agents.Pi, nil, []byte(body), false)
		if err != nil {
			t.Fatalf("call %d: %v: %.300s", i, err, body)
		}
		if ev.Session != session || ev.Cwd != f.dir || !strings.HasPrefix(ev.Transcript, f.home) {
			t.Errorf("call %d: session %q cwd %q transcript %q, want %q %q and one in %s", i, ev.Session, ev.Cwd, ev.Transcript, session, f.dir, f.home)
		}
		got = append(got, strings.TrimSpace(ev.Name+" "+ev.Reason+" "+ev.Tool+" "+strings.Join(ev.Names, ",")))
		if out := os.Getenv("GIT_CHECKPOINT_RECORD_PI"); out != "" {
			name := ev.Name
			if ev.Tool != "" {
				name += "-" + ev.Tool
			}
			var text bytes.Buffer
			json.Indent(&text, []byte(body), "", " ")
			// Pi names the sessions' directory after the project's path.
			slug := "--" + strings.ReplaceAll(strings.TrimPrefix(f.dir, "/"), "/", "-") + "--"
			fixture := strings.NewReplacer(f.dir, "/home/dev/lab/proj", f.home, "/home/dev/lab/home",
				slug, "--home-dev-lab-proj--").Replace(text.String())
			os.WriteFile(filepath.Join(out, name+".json"), []byte(fixture+"\n"), 0o644)
		}
	}
	sameLines(t, "the extension's calls", got, []string{
		"before_agent_start turn_start",
		"tool_result tool write written.txt",
		"tool_result tool edit " + f.path("written.txt"),
		"tool_result tool bash",
		"agent_end turn_end",
	})
}

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/agenttest"
)

// hookedAgent is what the story of an agent with command hooks and a
// session that resumes only by adding to it (Gemini CLI, Copilot CLI)
// needs to know of it.
type hookedAgent struct {
	name    string // as install and the journal name it
	install string // what install prints
	server  func(testing.TB, agenttest.Script) *agenttest.Server
	run     func(testing.TB, agenttest.Run) *agenttest.Result
	session func(*testing.T, *agenttest.Result) string
	resume  func(session string) []string // the arguments that resume it
	// write and shell are its tools that create a file and run a
	// command, and writeTool and shellTool their names in the hooks.
	write                func(path, content string) agenttest.Call
	shell                func(command string) agenttest.Call
	writeTool, shellTool string
	// afterTurnOne checks more after the first turn, or nil.
	afterTurnOne func(f *fixture)
	// settings, when set, is the agent's settings file in the tree,
	// which holds settings of the person's own before install
	// (settingsText): at the end, uninstall gives its bytes back.
	settings, settingsText string
}

// hookedStory: two turns with a create and a shell command, a person's
// edit between them, a rewind to a turn's start and to the first
// checkpoint, the note the model gets with the next prompt, and a bare
// rewind of the newest turn alone. The agent resumes a session only by
// adding to it, which would change the original: no rewind prints a
// command to resume.
func hookedStory(t *testing.T, tools string, a hookedAgent) {
	f := newFixture(t, tools)

	// install, as the README says
	if a.settings != "" {
		if err := os.MkdirAll(filepath.Dir(f.path(a.settings)), 0o755); err != nil {
			t.Fatal(err)
		}
		f.write(a.settings, a.settingsText)
	}
	res := f.exits(0, "git", "checkpoint", "install", a.name)
	wantOutput(t, res, a.install, "")
	before := f.manifest()

	// turn 1: a create and a shell command; turn 2 (the session
	// resumed): another create
	srv := a.server(t, agenttest.Script{Steps: []agenttest.Step{
		agenttest.Do(a.write(f.path("written.txt"), "written by the agent\n")),
		agenttest.Do(a.shell(shellEdit)),
		agenttest.Say("TURN-ONE-DONE"),
		agenttest.Do(a.write(f.path("second.txt"), "second\n")),
		agenttest.Say("TURN-TWO-DONE"),
	}})
	run := agenttest.Run{Dir: f.dir, Home: f.home, URL: srv.URL, Env: f.env}
	run.Prompt = "TURN-ONE: edit the files"
	first := a.run(t, run)
	f.ran(first, srv)
	session := a.session(t, first)
	f.turnOneDone()
	sameLines(t, "journal of turn 1", boundaries(t, f.journal(), session, a.name), []string{
		"turn_start t1",
		"tool t1 " + a.writeTool + " written.txt",
		"tool t1 " + a.shellTool, // the agent does not say which files a command changed
		"turn_end t1 (reused)",
	})
	if a.afterTurnOne != nil {
		a.afterTurnOne(f)
	}

	// a person's edit between the turns
	f.write("person.txt", personEdit)
	beforeTurn2 := f.manifest()

	run.Prompt, run.Args = "TURN-TWO: once more", a.resume(session)
	second := a.run(t, run)
	f.ran(second, srv)
	if got := a.session(t, second); got != session {
		t.Fatalf("the resumed run is session %s, want %s", got, session)
	}
	sameLines(t, "journal of turn 2", boundaries(t, fromTurn(f.journal(), "t2"), session, a.name), []string{
		"turn_start t2",
		"tool t2 " + a.writeTool + " second.txt",
		"turn_end t2 (reused)",
	})
	sameLines(t, "git checkpoint list", listed(t, f.list(), session, a.name), []string{
		"k1 turn_start t1",
		"k2 tool t1 " + a.writeTool,
		"k3 tool t1 " + a.shellTool,
		"k4 turn_start t2",
		"k5 tool t2 " + a.writeTool,
	})

	// rewind to the start of turn 2: no command to resume is printed
	f.rewindToTurnTwo(beforeTurn2)

	f.rewindToStart(before)

	// the next prompt of the session: the model gets the note with it
	next := a.server(t, agenttest.Script{Steps: append(make([]agenttest.Step, 5), agenttest.Say("NEXT-REPLY"))})
	run.URL, run.Prompt = next.URL, "AFTER-REWIND: carry on"
	third := a.run(t, run)
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
	more := a.server(t, agenttest.Script{Steps: append(make([]agenttest.Step, 6),
		agenttest.Do(a.write(f.path(keptFile), keptContent)),
		agenttest.Say("KEEP-DONE"),
		agenttest.Do(a.shell(shellMake)),
		agenttest.Say("MAKE-DONE"),
	)})
	run.URL, run.Prompt = more.URL, "KEEP: write a file"
	f.ran(a.run(t, run), more)
	firstStep(t, more, 6)
	afterKeep := f.manifest()
	run.Prompt = "MAKE: run a command"
	f.ran(a.run(t, run), more)
	sameLines(t, "journal of turns 4 and 5", boundaries(t, fromTurn(f.journal(), "t4"), session, a.name), []string{
		"turn_start t4 (reused)",
		"tool t4 " + a.writeTool + " " + keptFile,
		"turn_end t4 (reused)",
		"turn_start t5 (reused)", // the create's checkpoint, a partial one
		"tool t5 " + a.shellTool,
		"turn_end t5 (reused)",
	})
	f.bareRewindUndoesLatestTurn("t5", true, afterKeep)

	// uninstall: the person's settings, byte for byte
	if a.settings != "" {
		f.exits(0, "git", "checkpoint", "uninstall", a.name)
		if got := f.read(a.settings); got != a.settingsText {
			t.Errorf("%s after uninstall:\n%s\nwant, as before install:\n%s", a.settings, got, a.settingsText)
		}
	}
}

package e2e

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/agenttest"
)

// opencodeStory: OpenCode 1.18, with the plugin `git checkpoint install
// opencode` writes into .opencode/plugins/, run headless (opencode run)
// against a fake openai-compatible provider. One turn writes a file, runs
// a shell command and starts a subagent that writes another; the turn's
// start, each write and its end are checkpoints of one session, the
// prompt is in the log, and a bare `git rewind --yes` undoes the turn. At
// the end of the session's last turn the rewind prints the fork command,
// which goes on from that turn in a new session.
func opencodeStory(t *testing.T, tools string) {
	f := newFixture(t, tools)

	res := f.exits(0, "git", "checkpoint", "install", "opencode")
	wantOutput(t, res, "created   .opencode/plugins/git-checkpoint.js\n", "")
	before := openCodeTree(f)

	srv := agenttest.NewChatServer(t, agenttest.Script{Steps: []agenttest.Step{
		agenttest.Do(agenttest.OpenCodeWrite(f.path("written.txt"), "written by the agent\n")),
		agenttest.Do(agenttest.OpenCodeBash(shellEdit)),
		agenttest.Do(agenttest.OpenCodeTask("SUBTASK-7: write sub.txt")),
		agenttest.Say("TURN-ONE-DONE"),
		agenttest.Do(agenttest.OpenCodeWrite(f.path("second.txt"), "second\n")),
		agenttest.Say("TURN-TWO-DONE"),
	}, Sub: map[string][]agenttest.Step{"SUBTASK-7": {
		agenttest.Do(agenttest.OpenCodeWrite(f.path("sub.txt"), "by the subagent\n")),
		agenttest.Say("SUB-DONE"),
	}}})
	run := agenttest.Run{Dir: f.dir, Home: f.home, URL: srv.URL, Env: f.env}
	run.Prompt = "TURN-ONE: edit the files"
	first := agenttest.RunOpenCode(t, run)
	f.ran(first, srv)
	session := openCodeSession(t, first)
	f.turnOneDone()
	sameLines(t, "journal of turn 1", boundaries(t, f.journal(), session, "opencode"), []string{
		"turn_start t1",
		"tool t1 write written.txt",
		"tool t1 bash", // OpenCode's bash names no files
		"tool t1 write sub.txt",
		"turn_end t1 (reused)",
	})
	// `opencode run` quotes a prompt with spaces before the model gets it.
	if log := f.exits(0, "git", "checkpoint", "log").stdout; !strings.Contains(log, `"\"TURN-ONE: edit the files\""`) {
		t.Errorf("git checkpoint log lacks the prompt:\n%s", log)
	}
	afterTurn1 := openCodeTree(f)

	// at the end of the session's last turn, after a person's edit: the
	// fork command
	f.write("person.txt", personEdit)
	end := f.journal()[4].ID
	var doc rewindDoc
	f.exitsJSON(0, &doc, "git", "rewind", end, "--yes", "--json", "--outside=overwrite")
	doc.check(t, end, []string{"modify outside person.txt"}, nil)
	doc.checkResume(t, "opencode", "opencode --session "+session+" --fork")
	sameOpenCodeTree(f, "after git rewind "+end, afterTurn1)

	// the same fork, headless: a new session holding turn 1
	args := commandArgs(t, doc.Resume.Command, "opencode")
	run.Prompt, run.Args = "TURN-TWO: once more", args
	asked := len(srv.Steps())
	second := agenttest.RunOpenCode(t, run)
	f.ran(second, srv)
	fork := openCodeSession(t, second)
	if fork == session {
		t.Errorf("the fork is the original session %s", session)
	}
	// its first request holds turn 1's four replies
	if steps := srv.Steps(); len(steps) <= asked || steps[asked].Step != 4 || !strings.Contains(string(steps[asked].Body), "TURN-ONE-DONE") {
		t.Errorf("the fork's first request does not go on from turn 1:\n%s", srv.Dump())
	}
	sameLines(t, "journal of the fork", boundaries(t, fromTurn(f.journal(), "t2"), fork, "opencode"), []string{
		"turn_start t2 (reused)",
		"tool t2 write second.txt",
		"turn_end t2 (reused)",
	})

	// a bare rewind undoes the fork's turn, then t1 undoes the first
	res = f.exits(0, "git", "rewind", "--yes")
	if !strings.HasPrefix(res.stdout, "rewound to k") || !strings.Contains(res.stdout, "  delete agent        second.txt\n") {
		t.Errorf("git rewind --yes:\n%s", res.stdout)
	}
	sameOpenCodeTree(f, "after git rewind --yes", afterTurn1)
	res = f.exits(0, "git", "rewind", "t1", "--yes")
	for _, line := range []string{"  delete agent        written.txt\n", "  delete agent        sub.txt\n", "  delete turn         new.txt\n"} {
		if !strings.Contains(res.stdout, line) {
			t.Errorf("git rewind t1 lacks %q:\n%s", line, res.stdout)
		}
	}
	sameOpenCodeTree(f, "after git rewind t1", before)
}

// openCodeTree is the working tree's manifest without what OpenCode
// installs into .opencode for its plugins (node_modules, package.json,
// their lock and a .gitignore that ignores them all), which checkpoints
// leave alone as ignored files.
func openCodeTree(f *fixture) map[string]string {
	m := f.manifest()
	for p := range m {
		if strings.HasPrefix(p, ".opencode/") && !strings.HasPrefix(p, ".opencode/plugins") {
			delete(m, p)
		}
	}
	return m
}

// sameOpenCodeTree is fixture.sameTree of openCodeTree.
func sameOpenCodeTree(f *fixture, what string, want map[string]string) {
	f.t.Helper()
	if got := openCodeTree(f); !maps.Equal(got, want) {
		f.sameTree(what, merged(want, ignoredOpenCode(f)))
	}
}

// ignoredOpenCode is what openCodeTree leaves out.
func ignoredOpenCode(f *fixture) map[string]string {
	all, kept := f.manifest(), openCodeTree(f)
	for p := range kept {
		delete(all, p)
	}
	return all
}

// openCodeSession returns the session id of a run's JSON events.
func openCodeSession(t *testing.T, res *agenttest.Result) string {
	t.Helper()
	for _, line := range strings.Split(res.Stdout, "\n") {
		var ev struct {
			SessionID string `json:"sessionID"`
		}
		if json.Unmarshal([]byte(line), &ev) == nil && ev.SessionID != "" {
			return ev.SessionID
		}
	}
	t.Fatalf("no session id in OpenCode's output:\n%s", res)
	return ""
}

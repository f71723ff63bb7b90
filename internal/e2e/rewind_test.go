package e2e

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/agenttest"
)

// rewindDoc is the JSON document of `git rewind --json`.
type rewindDoc struct {
	Checkpoint string `json:"checkpoint"`
	Files      []struct {
		Path, Change, Class string
	} `json:"files"`
	Left []struct {
		Path, Reason string
	} `json:"left"`
	Safety string `json:"safety"`
	Exact  *bool  `json:"exact"`
	Resume *struct {
		Agent, Command string
	} `json:"resume"`
}

// check checks an applied rewind: its target, its files as "CHANGE CLASS
// PATH", what it left as "REASON PATH", and that the result was exact.
func (d rewindDoc) check(t *testing.T, id string, files, left []string) {
	t.Helper()
	if d.Checkpoint != id {
		t.Errorf("rewound to %s, want %s", d.Checkpoint, id)
	}
	var gotFiles, gotLeft []string
	for _, f := range d.Files {
		gotFiles = append(gotFiles, f.Change+" "+f.Class+" "+f.Path)
	}
	for _, l := range d.Left {
		gotLeft = append(gotLeft, l.Reason+" "+l.Path)
	}
	sameLines(t, "rewind to "+id+": files", gotFiles, files)
	sameLines(t, "rewind to "+id+": left", gotLeft, left)
	if d.Exact == nil || !*d.Exact || d.Safety == "" {
		t.Errorf("rewind to %s: exact %v, safety %q; want exact, with a safety checkpoint", id, d.Exact, d.Safety)
	}
}

// checkResume checks the rewind's resume command; "" wants none.
func (d rewindDoc) checkResume(t *testing.T, agent, command string) {
	t.Helper()
	switch {
	case command == "" && d.Resume != nil:
		t.Errorf("rewind to %s: resume %+v, want none", d.Checkpoint, *d.Resume)
	case command != "" && (d.Resume == nil || d.Resume.Agent != agent || d.Resume.Command != command):
		t.Errorf("rewind to %s: resume %+v, want %s: %s", d.Checkpoint, d.Resume, agent, command)
	}
}

// commandArgs splits a printed command line of program into its
// arguments. Session ids and uuids need no quoting, so none is expected.
func commandArgs(t *testing.T, command, program string) []string {
	t.Helper()
	words := strings.Fields(command)
	if len(words) < 2 || words[0] != program || strings.ContainsAny(command, `'"\`) {
		t.Fatalf("not a plain %s command line: %q", program, command)
	}
	return words[1:]
}

// noteFor is the start of the note the agent's model gets after a rewind
// to checkpoint id.
func noteFor(id string) string {
	return "git-checkpoint: the files of this working tree were rewound to checkpoint " + id
}

// noteTaken checks that the note was given, and so is no longer pending:
// it goes to the model once.
func (f *fixture) noteTaken() {
	f.t.Helper()
	if _, err := os.Stat(filepath.Join(f.stateDir(), "pending-note")); !errors.Is(err, fs.ErrNotExist) {
		f.t.Errorf("the note is still pending after the agent's next prompt (%v)", err)
	}
}

// shorten cuts a request body for a failing test's log: the agents send
// their whole system prompt and tool list each time.
func shorten(body string) string {
	if len(body) > 4000 {
		return body[:4000] + "..."
	}
	return body
}

// firstStep returns the body of the first scripted request a server got,
// and checks that it was answered by step, the number of model replies in
// the history the agent sent.
func firstStep(t *testing.T, srv *agenttest.Server, step int) string {
	t.Helper()
	steps := srv.Steps()
	if len(steps) == 0 {
		t.Fatalf("the model got no request:\n%s", srv.Dump())
	}
	if steps[0].Step != step {
		t.Errorf("the first request holds %d model replies, want %d:\n%s", steps[0].Step, step, shorten(string(steps[0].Body)))
	}
	return string(steps[0].Body)
}

// rewindToStart rewinds to t1, the start of the first turn, with the
// person's edit to person.txt (made after turn 1) in the tree: refused,
// then kept, then overwritten, after which the tree is exactly what it was
// before turn 1 (before). No turn had ended at t1, so no agent's
// conversation can be resumed there.
func (f *fixture) rewindToStart(before map[string]string) {
	t := f.t
	t.Helper()

	// refused, naming the path, and nothing changes
	now := f.manifest()
	res := f.exits(5, "git", "rewind", "t1")
	if !strings.Contains(res.stdout, "modify outside      person.txt\n") {
		t.Errorf("git rewind t1: the plan does not show person.txt as outside:\n%s", res.stdout)
	}
	if want := "git-rewind: error: 1 path changed outside agent turns: person.txt\n" +
		"hint: keep them as they are: git rewind k1 --outside=keep\n" +
		"hint: or restore them too (the safety checkpoint keeps their content): git rewind k1 --outside=overwrite\n"; res.stderr != want {
		t.Errorf("git rewind t1: stderr:\n%s--- want\n%s", res.stderr, want)
	}
	var refused struct {
		Error struct {
			Code string
			Data struct{ Paths []string }
		}
	}
	f.exitsJSON(5, &refused, "git", "rewind", "t1", "--yes", "--json")
	if refused.Error.Code != "conflict.outside_edits" || !slices.Equal(refused.Error.Data.Paths, []string{"person.txt"}) {
		t.Errorf("git rewind t1 --yes --json: %+v, want conflict.outside_edits for person.txt", refused.Error)
	}
	f.sameTree("after the refused rewinds", now)

	// kept: everything else is as before turn 1
	res = f.exits(0, "git", "rewind", "t1", "--yes", "--outside=keep")
	if !strings.Contains(res.stdout, "left as they are:\n  outside            person.txt\n") {
		t.Errorf("git rewind t1 --outside=keep: person.txt not shown as left:\n%s", res.stdout)
	}
	if strings.Contains(res.stdout, "conversation") {
		t.Errorf("git rewind t1 --outside=keep: a conversation is offered:\n%s", res.stdout)
	}
	f.sameTree("after git rewind t1 --outside=keep", f.with(before, "person.txt"))
	if got := f.read("person.txt"); got != personEdit {
		t.Errorf("person.txt: %q, want the person's %q", got, personEdit)
	}

	// overwritten: exactly as before turn 1
	var rw rewindDoc
	f.exitsJSON(0, &rw, "git", "rewind", "t1", "--yes", "--outside=overwrite", "--json")
	rw.check(t, "k1", []string{"modify outside person.txt"}, nil)
	rw.checkResume(t, "", "")
	f.sameTree("after git rewind t1 --outside=overwrite", before)
}

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
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// rewindDoc is the JSON document of `git rewind --json`.
type rewindDoc struct {
	Checkpoint string `json:"checkpoint"`
	DryRun     bool   `json:"dry_run"`
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

// rewindToTurnTwo rewinds to t2, the start of the second turn, whose one
// write (second.txt) goes, after which the tree is as before that turn.
// The session went on past t2, so no command to resume it is printed.
func (f *fixture) rewindToTurnTwo(beforeTurn2 map[string]string) {
	f.t.Helper()
	res := f.exits(0, "git", "rewind", "t2", "--yes")
	wantOutput(f.t, res, "rewound to k4\n"+
		"  delete agent        second.txt\n"+
		"1 path: 1 delete\n"+
		"safety checkpoint k6; undo with: git rewind --undo\n", "")
	f.sameTree("after git rewind t2", beforeTurn2)
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

// bareRewindUndoesLatestTurn checks a bare `git rewind` (no checkpoint
// named) after the two turns that end every story, turn being the second:
// its target is that turn's start, so it undoes that turn alone. The dry
// run targets the start and would only delete madeFile; applied, the
// rewind deletes madeFile and leaves keptFile as the first turn wrote it,
// the tree being afterFirst, as that turn left it. partial says whether
// the start reuses a partial checkpoint (an edit tool's, which brought
// only its file up to date): a bare rewind once passed over such a start
// and undid both turns.
func (f *fixture) bareRewindUndoesLatestTurn(turn string, partial bool, afterFirst map[string]string) {
	t := f.t
	t.Helper()
	var start *store.Record
	for _, r := range f.journal() {
		if r.Turn == turn && r.Reason == store.ReasonTurnStart {
			start = r
			break
		}
	}
	if start == nil {
		t.Fatalf("the journal has no start of turn %s", turn)
	}
	if !start.Reused {
		t.Errorf("turn %s's start took checkpoint %s, want a reuse of the previous turn's last one", turn, start.ID)
	}
	listed := false
	for _, r := range f.list() {
		if r.ID != start.ID {
			continue
		}
		listed = true
		if r.Partial != partial {
			t.Errorf("turn %s starts at %s (%s %s %s), partial %v, want %v", turn, r.ID, r.Reason, r.Turn, r.Tool, r.Partial, partial)
		}
	}
	if !listed {
		t.Errorf("turn %s starts at %s, which git checkpoint list does not show", turn, start.ID)
	}

	now := f.manifest()
	var plan rewindDoc
	f.exitsJSON(0, &plan, "git", "rewind", "--dry-run", "--json")
	if plan.Checkpoint != start.ID || !plan.DryRun {
		t.Errorf("git rewind --dry-run --json: target %s (dry run %v), want %s, the start of turn %s, the latest",
			plan.Checkpoint, plan.DryRun, start.ID, turn)
	}
	var files []string
	for _, p := range plan.Files {
		files = append(files, p.Change+" "+p.Path)
	}
	sameLines(t, "git rewind --dry-run --json: files (only the latest turn's)", files, []string{"delete " + madeFile})
	f.sameTree("after git rewind --dry-run", now)

	res := f.exits(0, "git", "rewind", "--yes")
	if first, _, _ := strings.Cut(res.stdout, "\n"); first != "rewound to "+start.ID {
		t.Errorf("git rewind --yes: %q, want \"rewound to %s\", the start of turn %s\n%s", first, start.ID, turn, res.stdout)
	}
	f.sameTree("after git rewind --yes", afterFirst)
	switch got, err := os.ReadFile(f.path(keptFile)); {
	case err != nil:
		t.Errorf("%s, written the turn before %s: %v, want it kept by git rewind --yes", keptFile, turn, err)
	case string(got) != keptContent:
		t.Errorf("%s after git rewind --yes: %q, want %q, as the turn before %s wrote it", keptFile, got, keptContent, turn)
	}
	if _, err := os.Lstat(f.path(madeFile)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s after git rewind --yes: %v, want it gone with turn %s", madeFile, err, turn)
	}
}

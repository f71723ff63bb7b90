package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/agenttest"
	"github.com/git-checkpoint/git-checkpoint/internal/scripttest"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// The shell command of every agent's first turn: it creates, deletes and
// appends to a file, changes no edit tool reports.
const shellEdit = "echo new > new.txt && rm gone.txt && echo two >> log.txt"

// What the person writes into person.txt between the turns.
const personEdit = "edited by a person\n"

// The two turns that end every story: the first writes keptFile with the
// agent's file-writing tool and ends with that call, so the second's
// start finds the tree that call's checkpoint holds; the second runs
// shellMake, which creates madeFile.
const (
	keptFile    = "kept.txt"
	keptContent = "written by the agent, kept\n"
	madeFile    = "made.txt"
	shellMake   = "echo made > " + madeFile
)

// fixture is one story's repository, the HOME its agent and its person
// share, and the environment both run with.
type fixture struct {
	t    *testing.T
	dir  string   // the repository, with symlinks resolved
	home string   // HOME of the agent's runs and of the person's commands
	env  []string // added to the agent's environment and the person's
}

// newFixture makes a story's repository, with its first files committed:
// gone.txt and log.txt for shellEdit, person.txt for the person's edit.
func newFixture(t *testing.T, tools string) *fixture {
	t.Helper()
	return &fixture{
		t: t,
		dir: agenttest.NewRepo(t, map[string]string{
			"gone.txt":   "delete me\n",
			"log.txt":    "one\n",
			"person.txt": "as committed\n",
		}),
		home: t.TempDir(),
		env: append(agenttest.GitEnv(),
			"PATH="+tools+string(os.PathListSeparator)+os.Getenv("PATH"),
			// The tool's test switches, should the developer's shell
			// have them set, are off.
			"GIT_CHECKPOINT_TRACE=", "GIT_CHECKPOINT_FAILPOINT=", "GIT_CHECKPOINT_ASSUME_TTY="),
	}
}

func (f *fixture) path(name string) string { return filepath.Join(f.dir, filepath.FromSlash(name)) }

func (f *fixture) read(name string) string {
	f.t.Helper()
	b, err := os.ReadFile(f.path(name))
	if err != nil {
		f.t.Fatal(err)
	}
	return string(b)
}

func (f *fixture) write(name, content string) {
	f.t.Helper()
	if err := os.WriteFile(f.path(name), []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

// turnOneDone checks that the first turn's edits happened: the edit
// tool's file and shellEdit's three changes.
func (f *fixture) turnOneDone() {
	f.t.Helper()
	for name, want := range map[string]string{"written.txt": "written by the agent\n", "new.txt": "new\n", "log.txt": "one\ntwo\n"} {
		if got := f.read(name); got != want {
			f.t.Errorf("%s after turn 1: %q, want %q", name, got, want)
		}
	}
	if _, err := os.Lstat(f.path("gone.txt")); !errors.Is(err, fs.ErrNotExist) {
		f.t.Errorf("gone.txt after turn 1: %v, want it gone", err)
	}
}

// rewindsBare checks that a bare `git rewind --yes` after a second turn
// that wrote second.txt undoes that turn, leaving the tree want.
func (f *fixture) rewindsBare(want map[string]string) {
	f.t.Helper()
	res := f.exits(0, "git", "rewind", "--yes")
	if !strings.HasPrefix(res.stdout, "rewound to k") || !strings.Contains(res.stdout, "  delete agent        second.txt\n") {
		f.t.Errorf("git rewind --yes:\n%s", res.stdout)
	}
	f.sameTree("after git rewind --yes", want)
}

// rewindsTurnOne checks that `git rewind t1 --yes` undoes the first turn
// (turnOneDone): the edit tool's file is the agent's, shellEdit's
// changes the turn's, and the tree is want again.
func (f *fixture) rewindsTurnOne(want map[string]string) {
	f.t.Helper()
	res := f.exits(0, "git", "rewind", "t1", "--yes")
	for _, line := range []string{"  delete agent        written.txt\n", "  delete turn         new.txt\n", "  create turn         gone.txt\n"} {
		if !strings.Contains(res.stdout, line) {
			f.t.Errorf("git rewind t1 lacks %q:\n%s", line, res.stdout)
		}
	}
	f.sameTree("after git rewind t1", want)
}

// result is what one of the person's commands printed and its exit status.
type result struct {
	stdout, stderr string
	code           int
}

// exits runs a command in the repository as the person types it
// (`git checkpoint ...` goes through git's own dispatch) and fails the
// test unless it exits with want.
func (f *fixture) exits(want int, name string, args ...string) result {
	f.t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = f.dir
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "GIT_DIR" && k != "GIT_WORK_TREE" && k != "GIT_INDEX_FILE" {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, f.env...)
	cmd.Env = append(cmd.Env, "HOME="+f.home, "CODEX_HOME="+filepath.Join(f.home, ".codex"), "NO_COLOR=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := result{stdout.String(), stderr.String(), 0}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		res.code = exit.ExitCode()
	case err != nil:
		f.t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
	}
	if res.code != want {
		f.t.Fatalf("%s %s: exit %d, want %d\n--- stdout\n%s--- stderr\n%s",
			name, strings.Join(args, " "), res.code, want, res.stdout, res.stderr)
	}
	return res
}

// exitsJSON runs a command that prints one JSON document and decodes it
// into v.
func (f *fixture) exitsJSON(want int, v any, name string, args ...string) result {
	f.t.Helper()
	res := f.exits(want, name, args...)
	if err := json.Unmarshal([]byte(res.stdout), v); err != nil {
		f.t.Fatalf("%s %s: stdout is not the JSON expected: %v\n%s", name, strings.Join(args, " "), err, res.stdout)
	}
	return res
}

// manifest describes the working tree: every path except .git, with its
// type, exec bit and content digest.
func (f *fixture) manifest() map[string]string {
	f.t.Helper()
	m, err := scripttest.Manifest(f.dir)
	if err != nil {
		f.t.Fatal(err)
	}
	return scripttest.WithoutMtime(m)
}

// sameTree fails the test when the working tree's manifest is not want,
// naming the paths that differ.
func (f *fixture) sameTree(what string, want map[string]string) {
	f.t.Helper()
	got := f.manifest()
	if maps.Equal(got, want) {
		return
	}
	var diff []string
	for _, p := range slices.Sorted(maps.Keys(merged(got, want))) {
		if got[p] != want[p] {
			diff = append(diff, p+": "+orNone(got[p])+", want "+orNone(want[p]))
		}
	}
	f.t.Errorf("%s: the working tree differs:\n  %s", what, strings.Join(diff, "\n  "))
}

func merged(a, b map[string]string) map[string]string {
	out := maps.Clone(a)
	maps.Copy(out, b)
	return out
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// with returns a copy of a manifest in which the named paths are described
// as the working tree has them now.
func (f *fixture) with(m map[string]string, names ...string) map[string]string {
	now := f.manifest()
	out := maps.Clone(m)
	for _, n := range names {
		out[n] = now[n]
	}
	return out
}

// list is `git checkpoint list --json --all`: every checkpoint, oldest
// first.
func (f *fixture) list() []store.Record {
	f.t.Helper()
	var doc struct {
		Checkpoints []store.Record `json:"checkpoints"`
	}
	f.exitsJSON(0, &doc, "git", "checkpoint", "list", "--json", "--all")
	slices.Reverse(doc.Checkpoints)
	return doc.Checkpoints
}

// journal returns the checkpoint records of the journal in the order they
// were written, reuses included: a turn's end usually changes nothing
// after its last tool call, so it is recorded as a reuse of that call's
// checkpoint, which `list` shows once.
func (f *fixture) journal() []*store.Record {
	f.t.Helper()
	data, err := os.ReadFile(filepath.Join(f.stateDir(), "journal.jsonl"))
	if err != nil {
		f.t.Fatal(err)
	}
	j := store.ParseJournal(data)
	if len(j.Problems()) > 0 {
		f.t.Fatalf("journal: %v", j.Problems())
	}
	var out []*store.Record
	for _, ev := range j.All() {
		if ev.Checkpoint != nil {
			out = append(out, ev.Checkpoint)
		}
	}
	return out
}

// stateDir is the tool's state directory of the repository.
func (f *fixture) stateDir() string {
	f.t.Helper()
	return strings.TrimSpace(f.exits(0, "git", "rev-parse", "--path-format=absolute", "--git-path", "checkpoints").stdout)
}

// hookLog returns the hook log's text ("" when there is none): a story
// whose hooks failed says why there.
func (f *fixture) hookLog() string {
	b, _ := os.ReadFile(filepath.Join(f.stateDir(), "hook.log"))
	return string(b)
}

// ran checks that an agent run succeeded, with what it printed, what its
// model server saw and the hook log when it did not.
func (f *fixture) ran(res *agenttest.Result, srv *agenttest.Server) {
	f.t.Helper()
	f.t.Logf("agent ran %s", res.Elapsed.Round(time.Millisecond))
	if res.Err != nil {
		f.t.Fatalf("agent failed: %s\n--- requests\n%s--- hook.log\n%s", res, srv.Dump(), f.hookLog())
	}
	if log := f.hookLog(); log != "" {
		f.t.Errorf("the hooks logged failures:\n%s", log)
	}
}

// boundaries reduces journal records to "REASON TURN [TOOL] [PATHS]
// [(reused)]", checking that each names session and agent.
func boundaries(t *testing.T, recs []*store.Record, session, agent string) []string {
	t.Helper()
	var out []string
	for _, r := range recs {
		if r.Session != session || r.Agent != agent {
			t.Errorf("%s (%s %s): session %q agent %q, want %q %q", r.ID, r.Reason, r.Turn, r.Session, r.Agent, session, agent)
		}
		words := []string{r.Reason, r.Turn}
		if r.Tool != "" {
			words = append(words, r.Tool)
		}
		if len(r.Paths) > 0 {
			words = append(words, strings.Join(slices.Sorted(slices.Values(r.Paths)), ","))
		}
		if r.Reused {
			words = append(words, "(reused)")
		}
		out = append(out, strings.Join(words, " "))
	}
	return out
}

// sameLines fails the test unless got equals want.
func sameLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n got  %q\n want %q", what, got, want)
	}
}

// fromTurn returns the records from the first of turn on.
func fromTurn(recs []*store.Record, turn string) []*store.Record {
	for i, r := range recs {
		if r.Turn == turn {
			return recs[i:]
		}
	}
	return nil
}

// wantOutput fails the test unless a command printed exactly stdout and
// stderr.
func wantOutput(t *testing.T, res result, stdout, stderr string) {
	t.Helper()
	if res.stdout != stdout || res.stderr != stderr {
		t.Errorf("output:\n--- stdout\n%s--- want\n%s--- stderr\n%s--- want\n%s", res.stdout, stdout, res.stderr, stderr)
	}
}

// listed reduces `list` records to "ID REASON TURN [TOOL]", checking that
// each names session and agent.
func listed(t *testing.T, recs []store.Record, session, agent string) []string {
	t.Helper()
	var out []string
	for _, r := range recs {
		if r.Session != session || r.Agent != agent {
			t.Errorf("list: %s (%s %s): session %q agent %q, want %q %q", r.ID, r.Reason, r.Turn, r.Session, r.Agent, session, agent)
		}
		out = append(out, strings.TrimSpace(strings.Join([]string{r.ID, r.Reason, r.Turn, r.Tool}, " ")))
	}
	return out
}

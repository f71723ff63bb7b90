package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// The rivals' own methods (docs/speed.md, "The rivals' methods"): what
// each other tool runs per checkpoint and per restore, as read from its
// public source, timed as cases of the same interleaved run as ours.
// Each keeps its shadow repository where the tool keeps it (a git
// directory of its own beside the project, or the project's own), here
// under the scratch directory, made afresh each run; the warm-up round and
// every case's untimed setup seed it, as a session's earlier checkpoints
// would.

// rival is one tool's method and the cases that time it.
type rival struct {
	key, name string
	// fresh marks a method that builds a new index for every snapshot,
	// which the goal wants us at least freshFactor faster than.
	fresh bool
	// capture and restore are whether it has cases of its own; Claude
	// Code's capture is the fresh case.
	capture, restore bool
}

var rivals = []rival{
	{key: "gemini", name: "Gemini CLI", capture: true, restore: true},
	{key: "opencode", name: "OpenCode", capture: true, restore: true},
	{key: "opencode-revert", name: "OpenCode revert", restore: true},
	{key: "cline", name: "Cline", capture: true, restore: true},
	{key: "claude", name: "Claude Code", fresh: true},
	{key: "stepback", name: "stepback", fresh: true, capture: true, restore: true},
}

// freshFactor is how much faster than a fresh-index method ours should be.
const freshFactor = 5

// rivalRows are the rows of the rivals' table: our case, and the rival
// case it is set against (by suffix; per-tool is a rival's capture after
// one change, each runs the same per tool call or per turn).
var rivalRows = []struct{ what, ours, theirs string }{
	{"capture, nothing changed", "clean", "clean"},
	{"capture, 1 file changed", "change1", "change1"},
	{"per-tool capture (theirs: capture, 1 file changed)", "tool", "change1"},
	{"restore of 100 files", "rewind100", "restore"},
}

// caseKey is the case that times rv's side of a row, "" for none.
func (rv rival) caseKey(theirs string) string {
	switch {
	case rv.key == "claude" && theirs != "restore":
		return "fresh"
	case theirs == "restore" && rv.restore, theirs != "restore" && rv.capture:
		return rv.key + "-" + theirs
	}
	return ""
}

// rivalTargets are the goals of issue 46 against the rivals: never slower
// than any rival's method on any tree and case, and at least freshFactor
// faster than the fresh-index methods. Goals: shown every run, on every
// tree and size, without deciding the exit status.
func rivalTargets() []target {
	var out []target
	for _, rv := range rivals {
		for _, row := range rivalRows {
			den := rv.caseKey(row.theirs)
			if den == "" {
				continue
			}
			limit, how := 1.0, "never slower"
			if rv.fresh {
				limit, how = 1.0/freshFactor, fmt.Sprintf("%dx faster", freshFactor)
			}
			out = append(out, target{what: fmt.Sprintf("ours / %s's method, %s (%s)", rv.name, row.what, how),
				num: row.ours, den: den, limit: limit, goal: true, everyShape: true, anySize: true})
		}
	}
	return out
}

// rivalState is a bed's rivals' shadow repositories and processes.
type rivalState struct {
	dir        string            // where the shadow repositories are
	stepback   string            // the source of stepback (its src directory); "" when it cannot run
	refs       map[string]string // each rival's last checkpoint, what its restore goes back to
	server     *pyServer         // stepback's long-lived checkpointing process
	ready      bool
	err        error // of initRivals
	n          int   // Cline's run counter
	clineStash bool  // whether Cline's last checkpoint is a stash (else HEAD)
}

// rivalCases are the rivals' cases of this bed.
func (b *bed) rivalCases() []benchCase {
	none := func(int) error { return nil }
	var out []benchCase
	add := func(key, label string, capture func() (sample, string, error), restore func(string) (sample, error)) {
		checkpoint := func(int) error {
			if err := b.initRivals(); err != nil {
				return err
			}
			_, ref, err := capture()
			b.rv.refs[key] = ref
			return err
		}
		runCapture := func(int) (sample, error) {
			s, ref, err := capture()
			b.rv.refs[key] = ref
			return s, err
		}
		// A capture of a changed file must make a new checkpoint: one that
		// took nothing (a misread status, a stash of nothing) would time
		// as a fast no-op.
		var before string
		out = append(out,
			benchCase{key: key + "-clean", label: label + ": capture, nothing changed", setup: checkpoint, teardown: none, run: runCapture},
			benchCase{key: key + "-change1", label: label + ": capture, 1 file changed",
				setup: func(r int) error {
					err := checkpoint(r)
					before = b.rv.refs[key]
					return b.then(err, b.edit(r, b.pick(r, 1, 6007)))
				},
				run: runCapture,
				teardown: func(r int) error {
					if after := b.rv.refs[key]; after == before || after == "" || after == "unchanged" {
						return fmt.Errorf("%s took no new checkpoint of a changed file (%q after %q)", label, after, before)
					}
					return b.restore(r)
				}})
		if restore != nil {
			out = append(out, b.restoreCase(key, label, checkpoint, restore))
		}
	}
	add("gemini", "Gemini CLI's shadow repository", b.geminiCapture, b.geminiRestore)
	add("opencode", "OpenCode's snapshot", b.opencodeTrack, b.opencodeRestore)
	// OpenCode's revert goes back to the same snapshots.
	out = append(out, b.restoreCase("opencode-revert", "OpenCode's revert", func(r int) error {
		if err := b.initRivals(); err != nil {
			return err
		}
		_, ref, err := b.opencodeTrack()
		b.rv.refs["opencode-revert"] = ref
		return err
	}, b.opencodeRevert))
	add("cline", "Cline's stash checkpoint", b.clineCapture, b.clineRestore)
	if b.rv.stepback != "" {
		add("stepback", "stepback", b.stepbackCapture, b.stepbackRestore)
	}
	return out
}

// restoreCase times a rival's restore of 100 changed files to the
// checkpoint its setup took, then checks the files are back.
func (b *bed) restoreCase(key, label string, checkpoint func(int) error, restore func(string) (sample, error)) benchCase {
	return benchCase{key: key + "-restore", label: label + ": restore of 100 files",
		setup:    func(r int) error { return b.then(checkpoint(r), b.edit(r, b.spread(r, 100, 11))) },
		run:      func(int) (sample, error) { return restore(b.rv.refs[key]) },
		teardown: func(r int) error { return b.then(b.checkRestored(r), []func() error{b.settleTree}) }}
}

// settleTree dates back every file a rival's restore wrote (OpenCode's
// checkout-index writes them all, Cline's stash apply every untracked one)
// and refreshes the real index, as restore does for the edits: files
// written in the second an index is written are racily clean, and every
// scan after would hash them again, charging the rival's restore to
// whichever case runs next.
func (b *bed) settleTree() error {
	recent, old := time.Now().Add(-time.Minute), time.Now().Add(-time.Hour)
	err := filepath.WalkDir(b.fx.dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		fi, err := d.Info()
		if err != nil || !fi.ModTime().After(recent) {
			return err
		}
		return os.Chtimes(p, old, old)
	})
	if err != nil {
		return err
	}
	return b.settleStatus(0)
}

// then applies edits after err is nil.
func (b *bed) then(err error, edits []func() error) error {
	if err != nil {
		return err
	}
	for _, e := range edits {
		if err := e(); err != nil {
			return err
		}
	}
	return nil
}

// initRivals makes the rivals' shadow repositories, once per bed; every
// case after a failure gets the same error.
func (b *bed) initRivals() error {
	if !b.rv.ready {
		b.rv.ready = true
		b.rv.err = b.makeRivals()
	}
	return b.rv.err
}

// makeRivals is initRivals' work.
func (b *bed) makeRivals() error {
	if err := os.RemoveAll(b.rv.dir); err != nil {
		return err
	}
	if err := b.geminiInit(); err != nil {
		return fmt.Errorf("Gemini CLI's shadow repository: %w", err)
	}
	if err := b.opencodeInit(); err != nil {
		return fmt.Errorf("OpenCode's snapshot repository: %w", err)
	}
	return nil
}

// closeRivals ends what initRivals started.
func (b *bed) closeRivals() {
	if b.rv.server != nil {
		b.rv.server.close()
		b.rv.server = nil
	}
}

// dropRivals removes what the rivals' methods left in the fixture: Cline's
// and stepback's refs (stepback's moved out of refs/checkpoints/, see
// stepbackScript) and stepback's state.
func (f *fixture) dropRivals() error {
	out, err := f.git(nil, "for-each-ref", "--format=delete %(refname)", "refs/bench-stepback/", "refs/cline/")
	if err != nil {
		return err
	}
	if len(out) > 0 {
		if _, err := f.git(out, "update-ref", "--stdin"); err != nil {
			return err
		}
	}
	return os.RemoveAll(filepath.Join(f.dir, ".git", "stepback"))
}

// steps times a sequence of commands as one sample: wall time from the
// first start to the last exit, whatever runs between them in this
// process (the file work a rival does itself), with the commands' CPU time
// and git processes summed.
type steps struct {
	start time.Time
	s     sample
}

func newSteps() *steps { return &steps{start: time.Now()} }

func (st *steps) add(s sample, err error) ([]byte, error) {
	st.s.add(s)
	return s.stdout, err
}

func (st *steps) done(err error) (sample, error) {
	st.s.dur = time.Since(st.start)
	st.s.stdout, st.s.trace = nil, nil
	return st.s, err
}

// parallel runs the commands at once, as a tool that awaits them together
// does, and returns their outputs.
func (b *bed) parallel(st *steps, env []string, cmds ...[]string) ([][]byte, error) {
	outs := make([][]byte, len(cmds))
	samples := make([]sample, len(cmds))
	errs := make([]error, len(cmds))
	var wg sync.WaitGroup
	for i, c := range cmds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			samples[i], errs[i] = b.timed(env, nil, "git", c...)
			outs[i] = samples[i].stdout
		}()
	}
	wg.Wait()
	for i := range samples {
		st.s.add(samples[i])
		if errs[i] != nil {
			return nil, errs[i]
		}
	}
	return outs, nil
}

func trimOut(b []byte) string { return strings.TrimSpace(string(b)) }

func splitZ(b []byte) []string {
	return slices.DeleteFunc(strings.Split(string(b), "\x00"), func(s string) bool { return s == "" })
}

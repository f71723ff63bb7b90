package checkpoint_test

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/scripttest"
)

// The model-based test drives capture and rewind with random edits of
// every kind and checks each step against a model of the tree that is
// computed from the filesystem and git's own rules, never from the
// product: what a checkpoint must hold is what `git ls-files --cached
// --others --exclude-standard` lists, hashed here as git would; a rewind
// must leave every ignored file, the index, HEAD and the refs as they
// were, and give back the checkpoint's files except those it says it
// left; an undo must give back the whole tree, ignored files included; a
// dry run's plan must be the plan applied.
//
// go test -run TestModel runs a few seeded scenarios (CI); -model.runs,
// -model.from, -model.steps and -model.seed run more, others, or one again. A failure prints
// its seed and the shortest list of steps found that still fails.
var (
	modelRuns  = flag.Int("model.runs", 6, "random scenarios TestModel runs")
	modelSteps = flag.Int("model.steps", 40, "steps per scenario")
	modelSeed  = flag.Int64("model.seed", 0, "run this seed only (0: model.runs seeds from model.from)")
	modelFrom  = flag.Int64("model.from", 1, "the first seed of a run of several")
)

// mop is one step of a scenario.
type mop struct {
	kind    string // write, remove, symlink, nest, fifo, ignore, attrs, config, commit, checkpoint, partial, rewind, paths, during, undo
	path    string
	data    string
	exec    bool
	target  int // rewind: which checkpoint, modulo how many there are
	another string
}

func (o mop) String() string {
	switch o.kind {
	case "write":
		mode := ""
		if o.exec {
			mode = " (+x)"
		}
		return fmt.Sprintf("write %q %q%s", o.path, o.data, mode)
	case "remove", "nest", "fifo":
		return fmt.Sprintf("%s %q", o.kind, o.path)
	case "attrs":
		return fmt.Sprintf("attrs %q", o.data)
	case "config":
		return fmt.Sprintf("git config %s %s", o.path, o.data)
	case "during":
		return fmt.Sprintf("rewind #%d while %q is written", o.target, o.path)
	case "symlink":
		return fmt.Sprintf("symlink %q -> %q", o.path, o.data)
	case "ignore":
		return fmt.Sprintf("ignore %q: %q", o.path, o.data)
	case "rewind", "paths":
		return fmt.Sprintf("%s #%d %q", o.kind, o.target, o.path)
	}
	return o.kind
}

// Names of every kind: spaces, a newline, bytes that are not UTF-8,
// pathspec magic, a leading dash, unicode, deep paths, ignored ones, and
// one name that is a file or a directory by turns.
var modelNames = []string{
	"a.txt", "dir/b.txt", "dir/sub/c.bin", "My Notes/todo.txt", "n\nl/x.txt",
	"raw\xff.txt", ":colon.txt", "-dash", "café.txt", "app.log", "build/out.o",
	"sp ace ", "deep/a/b/c/d.txt", "x", "x/y", "dir/sub",
}

var modelContents = []string{"one\n", "two\r\nlines\r\n", "\x00\x01binary\xff", "", "#!/bin/sh\necho hi\n"}

var modelIgnores = []string{"", "*.log\n", "build/\n", "*.log\nbuild/\n", "x\n", "dir/sub/\n", "/x\n/deep/a/\n", "*.txt\n!a.txt\n"}

// Attributes that make git convert what it stores (line endings, an
// encoding a file may not be in), ones that convert nothing, which leave
// the tree plain (attributesConvert), and settings that change how git reads
// the disk, flipped between a checkpoint and the rewind to it: neither
// may change the bytes, the executable bit or the kinds a rewind brings
// back (invariant 10). A tight size limit leaves files out, never a
// rewind undone (invariant 11).
var modelAttrs = []string{"", "* text=auto\n", "*.txt eol=crlf\n", "*.txt working-tree-encoding=UTF-16\n",
	"* -text\n", "*.txt linguist-generated -diff\n"}

var modelConfigs = [][2]string{
	{"core.autocrlf", "true"}, {"core.autocrlf", "false"}, {"core.autocrlf", "input"},
	{"core.fileMode", "false"}, {"core.fileMode", "true"},
	{"checkpoint.maxTotalBytes", "40"}, {"checkpoint.maxTotalBytes", "2g"},
}

func genScenario(seed int64, steps int) []mop {
	r := rand.New(rand.NewSource(seed))
	pick := func(list []string) string { return list[r.Intn(len(list))] }
	ops := []mop{{kind: "checkpoint"}}
	for len(ops) < steps {
		switch n := r.Intn(100); {
		case n < 30:
			ops = append(ops, mop{kind: "write", path: pick(modelNames), data: pick(modelContents), exec: r.Intn(5) == 0})
		case n < 38:
			ops = append(ops, mop{kind: "remove", path: pick(modelNames)})
		case n < 42:
			ops = append(ops, mop{kind: "symlink", path: pick(modelNames), data: pick([]string{"a.txt", "dir", "../outside", "nowhere"})})
		case n < 44:
			ops = append(ops, mop{kind: "nest", path: pick(modelNames)})
		case n < 45:
			ops = append(ops, mop{kind: "fifo", path: pick(modelNames)})
		case n < 48:
			ops = append(ops, mop{kind: "ignore", path: pick([]string{".gitignore", "dir/.gitignore"}), data: pick(modelIgnores)})
		case n < 49:
			ops = append(ops, mop{kind: "attrs", data: pick(modelAttrs)})
		case n < 50:
			c := modelConfigs[r.Intn(len(modelConfigs))]
			ops = append(ops, mop{kind: "config", path: c[0], data: c[1]})
		case n < 54:
			ops = append(ops, mop{kind: "commit"})
		case n < 70:
			ops = append(ops, mop{kind: "checkpoint"})
		case n < 76:
			ops = append(ops, mop{kind: "partial"})
		case n < 85:
			ops = append(ops, mop{kind: "rewind", target: r.Intn(1000)})
		case n < 88:
			ops = append(ops, mop{kind: "during", target: r.Intn(1000), path: pick(modelNames)})
		case n < 94:
			ops = append(ops, mop{kind: "paths", target: r.Intn(1000), path: pick(modelNames)})
		default:
			ops = append(ops, mop{kind: "undo"})
		}
	}
	return ops
}

func TestModel(t *testing.T) {
	seeds := []int64{*modelSeed}
	if *modelSeed == 0 {
		seeds = nil
		for i := 0; i < *modelRuns; i++ {
			seeds = append(seeds, *modelFrom+int64(i))
		}
	}
	for _, seed := range seeds {
		ops := genScenario(seed, *modelSteps)
		if err := runScenario(t, ops); err != nil {
			short, why := shrink(t, ops, err)
			var steps []string
			for i, o := range short {
				steps = append(steps, fmt.Sprintf("  %2d %s", i+1, o))
			}
			t.Fatalf("seed %d fails (reproduce: go test -run TestModel -model.seed %d -model.steps %d); a shortest failing list of steps:\n%s\n%v",
				seed, seed, *modelSteps, strings.Join(steps, "\n"), why)
		}
	}
}

// shrink removes steps while the scenario still fails, halves first, then
// one by one, within a bounded number of runs.
func shrink(t *testing.T, ops []mop, err error) ([]mop, error) {
	runs := 0
	for chunk := len(ops) / 2; chunk >= 1 && runs < 150; chunk /= 2 {
		for i := 1; i+chunk <= len(ops) && runs < 150; { // keep the first checkpoint
			try := append(slices.Clone(ops[:i]), ops[i+chunk:]...)
			runs++
			if e := runScenario(t, try); e != nil {
				ops, err = try, e
				continue
			}
			i += chunk
		}
	}
	return ops, err
}

// model is a scenario's state: the repository and what each checkpoint
// must hold.
type model struct {
	t     *testing.T
	dir   string
	env   []string
	snaps []snapshot // checkpoints taken, in order
	dirty map[string]bool
	// undoable is the whole tree before the last rewind, while an undo
	// can still go back to it.
	undoable map[string]string
	// converts says git may store a file otherwise than its bytes (an
	// attribute or a setting asked for it once): a checkpoint's blobs are
	// then not the files' bytes, and only its paths are compared with
	// the tree; a rewind must still give the bytes back.
	converts bool
}

type snapshot struct {
	id    string
	files map[string]string // path -> mode and blob id of its bytes on disk
}

func runScenario(t *testing.T, ops []mop) (err error) {
	m := &model{t: t, dir: t.TempDir(), env: gitEnv(t), dirty: map[string]bool{}}
	if r := run(t, m.dir, m.env, "git", "init", "-q", "-b", "main"); r.code != 0 {
		return fmt.Errorf("git init: %s", r.stderr)
	}
	for i, o := range ops {
		if err := m.step(o); err != nil {
			return fmt.Errorf("step %d (%s): %w", i+1, o, err)
		}
	}
	return nil
}

func (m *model) step(o mop) error {
	full := filepath.Join(m.dir, filepath.FromSlash(o.path))
	switch o.kind {
	case "write":
		removeAll(m.dir, full)
		mode := os.FileMode(0o644)
		if o.exec {
			mode = 0o755
		}
		if os.MkdirAll(filepath.Dir(full), 0o755) == nil {
			if err := os.WriteFile(full, []byte(o.data), mode); err == nil {
				os.Chmod(full, mode)
			}
		}
		m.touch(o.path)
	case "remove":
		removeAll(m.dir, full)
		m.touch(o.path)
	case "symlink":
		removeAll(m.dir, full)
		if os.MkdirAll(filepath.Dir(full), 0o755) == nil {
			os.Symlink(o.data, full)
		}
		m.touch(o.path)
	case "fifo":
		removeAll(m.dir, full)
		if os.MkdirAll(filepath.Dir(full), 0o755) == nil {
			syscall.Mkfifo(full, 0o644)
		}
		m.touch(o.path)
	case "attrs":
		full = filepath.Join(m.dir, ".gitattributes")
		removeAll(m.dir, full)
		if o.data != "" {
			os.WriteFile(full, []byte(o.data), 0o644)
			m.converts = true
		}
		m.touch(".gitattributes")
		m.dirty["*"] = true
	case "config":
		if r := run(m.t, m.dir, m.env, "git", "config", o.path, o.data); r.code != 0 {
			return fmt.Errorf("git config: %s", r.stderr)
		}
		if o.path != "checkpoint.maxTotalBytes" {
			m.converts = true
		}
		m.dirty["*"] = true
	case "nest":
		removeAll(m.dir, full)
		if os.MkdirAll(full, 0o755) == nil {
			os.WriteFile(filepath.Join(full, "inner"), []byte("nested\n"), 0o644)
		}
		m.touch(o.path)
		m.touch(o.path + "/inner")
	case "ignore":
		removeAll(m.dir, full)
		if os.MkdirAll(filepath.Dir(full), 0o755) == nil {
			os.WriteFile(full, []byte(o.data), 0o644)
		}
		m.touch(o.path)
		m.dirty["*"] = true // every path may change visibility
	case "commit":
		r := run(m.t, m.dir, m.env, "git", "add", "-A")
		if r.code == 0 {
			run(m.t, m.dir, m.env, "git", "commit", "-q", "--allow-empty", "-m", "step")
		}
		m.undoable = nil // the index changed: the rewind's undo is not compared
	case "checkpoint":
		return m.checkpoint(nil)
	case "partial":
		if len(m.dirty) == 0 || m.dirty["*"] || len(m.dirty) > 8 {
			return m.checkpoint(nil)
		}
		var named []string
		for p := range m.dirty {
			named = append(named, p)
		}
		slices.Sort(named)
		return m.checkpoint(named)
	case "rewind", "paths":
		if len(m.snaps) == 0 {
			return nil
		}
		paths := []string(nil)
		if o.kind == "paths" {
			paths = []string{o.path}
		}
		return m.rewind(m.snaps[o.target%len(m.snaps)], paths, "")
	case "during":
		if len(m.snaps) == 0 {
			return nil
		}
		return m.rewind(m.snaps[o.target%len(m.snaps)], nil, o.path)
	case "undo":
		return m.undo()
	}
	return nil
}

// removeAll is os.RemoveAll of full, below dir, unless a component on its
// way is not a directory: os.RemoveAll would open it, and a FIFO there
// waits for a writer forever. Nothing is below such a component anyway.
func removeAll(dir, full string) {
	rel, err := filepath.Rel(dir, filepath.Dir(full))
	if err != nil {
		return
	}
	for cur := dir; rel != "."; {
		first, rest, _ := strings.Cut(rel, string(filepath.Separator))
		cur = filepath.Join(cur, first)
		if fi, err := os.Lstat(cur); err == nil && !fi.IsDir() {
			return
		}
		if rel = rest; rel == "" {
			break
		}
	}
	os.RemoveAll(full)
}

// touch notes a path changed since the last checkpoint, with the
// directories whose kind may have changed on its way.
func (m *model) touch(p string) {
	m.dirty[p] = true
	m.undoable = nil
}

// checkpoint takes a checkpoint (a partial one of named), and checks that
// it changed nothing and holds exactly what git sees.
func (m *model) checkpoint(named []string) error {
	before, state := manifest(m.t, m.dir), m.gitState()
	args := []string{"checkpoint", "--json"}
	for _, p := range named {
		args = append(args, "--changed="+p)
	}
	r := run(m.t, m.dir, m.env, "git", args...)
	if r.code == 1 && strings.Contains(r.stdout, `"failed.checkpoint_too_large"`) {
		// Over a tight checkpoint.maxTotalBytes a checkpoint asked for
		// fails, changing nothing; rewinds must still work.
		return m.same(before, state)
	}
	if r.code != 0 {
		return fmt.Errorf("git checkpoint: exit %d: %s", r.code, r.stderr)
	}
	var rec checkpointDoc
	if err := json.Unmarshal([]byte(r.stdout), &rec); err != nil {
		return fmt.Errorf("git checkpoint --json: %v: %s", err, r.stdout)
	}
	if err := m.same(before, state); err != nil {
		return fmt.Errorf("the checkpoint changed something: %w", err)
	}
	if err := m.holdsVisible(rec); err != nil {
		return err
	}
	want, err := m.visible()
	if err != nil {
		return err
	}
	rec.dropSkipped(want)
	m.snaps = append(m.snaps, snapshot{id: rec.ID, files: want})
	m.dirty = map[string]bool{}
	return nil
}

// checkpointDoc is what `git checkpoint --json` and `list --json` say of
// a checkpoint.
type checkpointDoc struct {
	ID      string    `json:"id"`
	Commit  string    `json:"commit"`
	Skipped []pathDoc `json:"skipped"`
}

// dropSkipped deletes from files the paths rec skipped, and those below
// a directory it skipped.
func (rec checkpointDoc) dropSkipped(files map[string]string) {
	for _, sk := range rec.Skipped {
		for p := range files {
			if name := sk.name(); p == name || strings.HasPrefix(p, name+"/") {
				delete(files, p)
			}
		}
	}
}

// holdsVisible checks that the checkpoint rec holds the tree git sees
// now: what `git add -A` would take, whatever took the checkpoint (a
// scan, the paths a tool named, a rewind's capture after it).
func (m *model) holdsVisible(rec checkpointDoc) error {
	want, err := m.visible()
	if err != nil {
		return err
	}
	got, err := m.treeOf(rec.Commit)
	if err != nil {
		return err
	}
	// A file the checkpoint says it skipped (too big, of a kind git
	// cannot hold) is in neither; a rewind to it must leave such a path.
	// A rewind's captures name a directory of new files left out whole
	// (too_big_total).
	rec.dropSkipped(want)
	rec.dropSkipped(got)
	if m.converts {
		// Blobs hold what git stores; the bytes are checked when a
		// rewind brings them back.
		want, got = pathsOf(want), pathsOf(got)
	}
	if d := diffFiles(want, got); d != "" {
		return fmt.Errorf("%s holds what git does not see as the tree (was: what git sees, now: the checkpoint):\n%s", rec.ID, d)
	}
	return nil
}

type leftDoc struct {
	pathDoc
	Reason string
	Kept   string `json:"kept"` // a file kept aside, changed_during_rewind
}

// pathDoc is a path as --json gives it.
type pathDoc struct {
	Path string
	// PathBase64 holds the bytes of a name that is not UTF-8, which
	// Path cannot (see name).
	PathBase64 []byte `json:"path_base64"`
}

// name is the path's exact bytes.
func (p pathDoc) name() string {
	if p.PathBase64 != nil {
		return string(p.PathBase64)
	}
	return p.Path
}

type rewindDoc struct {
	Plan  string `json:"plan"`
	Files []struct {
		Path, Change string
	} `json:"files"`
	Left  []leftDoc `json:"left"`
	Exact *bool     `json:"exact"`
}

// rewind goes back to s (only paths, when given) and checks the result.
// With written, a file is written at that path while the rewind holds
// between its safety checkpoint and its first write: the write must be
// on disk after it (invariant 9), and the path is not checked against s.
func (m *model) rewind(s snapshot, paths []string, written string) error {
	before, state := manifest(m.t, m.dir), m.gitState()
	visibleBefore, err := m.visible()
	if err != nil {
		return err
	}
	args := []string{"rewind", s.id, "--outside=overwrite", "--json"}
	var tail []string
	if paths != nil {
		tail = append([]string{"--"}, paths...)
	}
	dry := run(m.t, m.dir, m.env, "git", append(append(args, "--dry-run"), tail...)...)
	if dry.code == 3 && paths != nil {
		return nil // a path in neither: not_found.path
	}
	if dry.code != 0 {
		return fmt.Errorf("dry run: exit %d: %s%s", dry.code, dry.stdout, dry.stderr)
	}
	var plan rewindDoc
	if err := json.Unmarshal([]byte(dry.stdout), &plan); err != nil {
		return fmt.Errorf("dry run: %v", err)
	}
	if err := m.same(before, state); err != nil {
		return fmt.Errorf("the dry run changed something: %w", err)
	}
	var r result
	wrote := ""
	if written == "" {
		r = run(m.t, m.dir, m.env, "git", append(append(args, "--plan", plan.Plan), tail...)...)
	} else {
		paused, resume := pausedRewind(m.t, m.dir, m.env, "staged", append(append(slices.Clone(args[1:]), "--plan", plan.Plan), tail...)...)
		if paused {
			wrote, written = m.writeDuring(written)
		}
		r = resume()
	}
	if r.code != 0 {
		return fmt.Errorf("rewind --plan %s: exit %d: %s%s", plan.Plan, r.code, r.stdout, r.stderr)
	}
	var done rewindDoc
	if err := json.Unmarshal([]byte(r.stdout), &done); err != nil {
		return fmt.Errorf("rewind: %v: %s", err, r.stdout)
	}
	// A path written during the rewind, and one that write stands in the
	// way of, moves from the plan's files to what it left.
	planned := plan.Files[:0:0]
	for _, f := range plan.Files {
		if wrote == "" || !slices.ContainsFunc(done.Left, func(l leftDoc) bool { return l.Path == f.Path }) {
			planned = append(planned, f)
		}
	}
	if fmt.Sprint(done.Files) != fmt.Sprint(planned) {
		return fmt.Errorf("applied %v, the dry run planned %v", done.Files, plan.Files)
	}
	if st := m.gitState(); st != state {
		return fmt.Errorf("the rewind changed git's state")
	}
	after := manifest(m.t, m.dir)
	visibleAfter, err := m.visible()
	if err != nil {
		return err
	}
	// Ignored files are never deleted or overwritten (but by the writer).
	for p, desc := range before {
		if _, seen := visibleBefore[p]; !seen && after[p] != desc && p != written {
			return fmt.Errorf("ignored %q was touched: %q, now %q", p, desc, after[p])
		}
	}
	left := map[string]bool{}
	for _, l := range done.Left {
		left[l.name()] = true
		if l.Reason == "changed_during_rewind" && (done.Exact == nil || *done.Exact) {
			return fmt.Errorf("%q changed during the rewind, which says it is exact", l.Path)
		}
	}
	if wrote != "" {
		full := filepath.Join(m.dir, filepath.FromSlash(written))
		if b, err := os.ReadFile(full); err != nil || string(b) != wrote {
			return fmt.Errorf("%q was written during the rewind and holds %q after it (%v)", written, b, err)
		}
		left[written] = true
		m.undoable = nil
	}
	isLeft := func(p string) bool {
		for d := p; d != "."; d = path.Dir(d) {
			if left[d] {
				return true
			}
		}
		for l := range left {
			if strings.HasPrefix(l, p+"/") {
				return true // a path on the way to a left one
			}
		}
		return false
	}
	for p, want := range s.files {
		if !under(p, paths) || isLeft(p) {
			continue
		}
		// On disk, visible or not: a file the checkpoint held as tracked
		// may be ignored now that the index no longer tracks it.
		if got := m.describe(p); got != want {
			return fmt.Errorf("%q is %q after the rewind to %s, which has %q", p, got, s.id, want)
		}
	}
	for p, got := range visibleAfter {
		_, inTarget := s.files[p]
		_, wasIgnored := before[p]
		if _, wasVisible := visibleBefore[p]; wasVisible {
			wasIgnored = false
		}
		switch {
		case !under(p, paths):
			if visibleBefore[p] != got {
				return fmt.Errorf("%q, outside the paths rewound, changed", p)
			}
		case !inTarget && !isLeft(p) && !wasIgnored:
			return fmt.Errorf("%q is there after the rewind to %s, which lacks it", p, s.id)
		}
	}
	if len(done.Files) > 0 && wrote == "" {
		// A rewind with nothing to write records none: an undo then
		// undoes the one before.
		m.undoable = before
		// Its checkpoint after, the newest, is of the tree it left.
		l := run(m.t, m.dir, m.env, "git", "checkpoint", "list", "--json")
		var list struct{ Checkpoints []checkpointDoc }
		if err := json.Unmarshal([]byte(l.stdout), &list); err != nil || len(list.Checkpoints) == 0 {
			return fmt.Errorf("git checkpoint list --json: %v: %s", err, l.stdout)
		}
		if err := m.holdsVisible(list.Checkpoints[0]); err != nil {
			return fmt.Errorf("after the rewind to %s: %w", s.id, err)
		}
	}
	m.dirty["*"] = true
	return nil
}

// writeDuring writes a person's line at p, where a regular file or
// nothing is (in an existing directory), and returns what the file holds
// then ("" when it wrote nothing) and where the write landed (realPath).
func (m *model) writeDuring(p string) (wrote, real string) {
	full := filepath.Join(m.dir, filepath.FromSlash(p))
	if fi, err := os.Lstat(full); err == nil && !fi.Mode().IsRegular() {
		return "", p
	}
	if fi, err := os.Stat(filepath.Dir(full)); err != nil || !fi.IsDir() {
		return "", p
	}
	f, err := os.OpenFile(full, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return "", p
	}
	fmt.Fprintln(f, "written during the rewind")
	f.Close()
	b, _ := os.ReadFile(full)
	return string(b), m.realPath(p)
}

// realPath is where p is in the tree once the symlinks on its way are
// followed: a write to x/y, x a symlink to dir, is a write to dir/y. p
// itself when a symlink leads out of the tree.
func (m *model) realPath(p string) string {
	top, err := filepath.EvalSymlinks(m.dir)
	if err != nil {
		return p
	}
	full := filepath.Join(m.dir, filepath.FromSlash(p))
	dir, err := filepath.EvalSymlinks(filepath.Dir(full))
	if err != nil {
		return p
	}
	rel, err := filepath.Rel(top, filepath.Join(dir, filepath.Base(full)))
	if err != nil || strings.HasPrefix(rel, "..") {
		return p
	}
	return filepath.ToSlash(rel)
}

// undo undoes the last rewind and, when nothing changed since it, checks
// that the whole tree is back.
func (m *model) undo() error {
	state := m.gitState()
	r := run(m.t, m.dir, m.env, "git", "rewind", "--undo", "--yes", "--outside=overwrite", "--json")
	if r.code == 3 {
		return nil // nothing to undo
	}
	if r.code != 0 {
		return fmt.Errorf("rewind --undo: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	if m.gitState() != state {
		return fmt.Errorf("the undo changed git's state")
	}
	if m.undoable != nil {
		if d := diffFiles(m.undoable, manifest(m.t, m.dir)); d != "" {
			return fmt.Errorf("the undo did not give the tree back (was: before the rewind):\n%s", d)
		}
	}
	m.undoable = nil
	m.dirty["*"] = true
	return nil
}

func under(p string, paths []string) bool {
	if paths == nil {
		return true
	}
	for _, q := range paths {
		if p == q || strings.HasPrefix(p, q+"/") {
			return true
		}
	}
	return false
}

// visible is what git sees as the tree: the tracked paths and the
// untracked ones its rules do not ignore, each as git would store it
// (mode and blob id, a symlink by its target).
func (m *model) visible() (map[string]string, error) {
	r := run(m.t, m.dir, m.env, "git", "-c", "core.quotePath=false", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	if r.code != 0 {
		return nil, fmt.Errorf("ls-files: %s", r.stderr)
	}
	files := map[string]string{}
	for _, p := range strings.Split(r.stdout, "\x00") {
		if p == "" || strings.HasSuffix(p, "/") {
			continue
		}
		if d := m.describe(p); d != "" {
			files[p] = d
		}
	}
	return files, nil
}

// pathsOf is files with its paths alone.
func pathsOf(files map[string]string) map[string]string {
	paths := make(map[string]string, len(files))
	for p := range files {
		paths[p] = "present"
	}
	return paths
}

// describe is the file or symlink at p by its bytes on disk (mode and
// blob id, a symlink by its target), or "" when there is none (nothing,
// a directory, a FIFO).
func (m *model) describe(p string) string {
	full := filepath.Join(m.dir, filepath.FromSlash(p))
	fi, err := os.Lstat(full)
	switch {
	case err != nil || fi.IsDir():
		return ""
	case fi.Mode()&fs.ModeSymlink != 0:
		target, _ := os.Readlink(full)
		return "120000 " + blobID([]byte(target))
	case !fi.Mode().IsRegular():
		return ""
	}
	data, err := os.ReadFile(full)
	if err != nil {
		return ""
	}
	mode := "100644"
	if fi.Mode()&0o100 != 0 {
		mode = "100755"
	}
	return mode + " " + blobID(data)
}

// treeOf lists a checkpoint commit's tree as visible does.
func (m *model) treeOf(commit string) (map[string]string, error) {
	r := run(m.t, m.dir, m.env, "git", "ls-tree", "-r", "-z", commit)
	if r.code != 0 {
		return nil, fmt.Errorf("ls-tree %s: %s", commit, r.stderr)
	}
	files := map[string]string{}
	for _, e := range strings.Split(r.stdout, "\x00") {
		meta, p, ok := strings.Cut(e, "\t")
		if !ok {
			continue
		}
		f := strings.Fields(meta)
		files[p] = f[0] + " " + f[2]
	}
	return files, nil
}

func blobID(data []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// diffFiles says how two path maps differ, one line a path; "" when equal.
func diffFiles(want, got map[string]string) string {
	return strings.Join(scripttest.Diff(want, got), "\n")
}

// gitState is what no checkpoint or rewind may change: the index, HEAD,
// the branches and every other ref but the checkpoints', as bytes.
func (m *model) gitState() string {
	var b bytes.Buffer
	gitDir := filepath.Join(m.dir, ".git")
	for _, f := range []string{"index", "HEAD", "packed-refs", "config", "info/exclude"} {
		data, _ := os.ReadFile(filepath.Join(gitDir, f))
		fmt.Fprintf(&b, "%s %x\n", f, sha1.Sum(data))
	}
	filepath.WalkDir(filepath.Join(gitDir, "refs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && d.Name() == "checkpoints" {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			data, _ := os.ReadFile(p)
			fmt.Fprintf(&b, "%s %s", p, data)
		}
		return nil
	})
	return b.String()
}

// same checks that the tree and git's state are as they were.
func (m *model) same(before map[string]string, state string) error {
	if d := diffFiles(before, manifest(m.t, m.dir)); d != "" {
		return fmt.Errorf("the tree changed:\n%s", d)
	}
	if m.gitState() != state {
		return fmt.Errorf("git's state changed")
	}
	return nil
}

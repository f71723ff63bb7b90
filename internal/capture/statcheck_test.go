package capture

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/gittest"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// The stat check's differential test: random edits of a small tree, each
// followed by a capture, whose tree must be the one git's scan finds from
// the same private index and state without the record whenever the check
// vouched for the tree, and always the one git adds afresh from the real
// index (`git add -A` into a copy of it): what the tree holds, whatever
// the captures before it took and left pending.
//
// An input is a list of (operation, argument) byte pairs. The argument
// picks a path of statPaths and a variant: what a file holds, what a
// directory or a link holds, which rules, which git command. The paths
// include a tracked file under an ignore rule (app.log, build/keep.txt),
// ignored directories and files, and the rules files themselves, and any
// of them can become a file, a directory, a symbolic link (dangling or
// not) or nothing, so that captures leave pending paths and dropped ones
// behind in every state.

// statPaths are the paths the operations act on.
var statPaths = []string{
	"app.log", "src/a.txt", "src/new.txt", "src/swap", "src/link", "src/app.log",
	"build", "build/keep.txt", "build/o.o", "logs/x.log", "logs/n.txt",
	"deep", "deep/e/f/g.txt", "empty/n.txt", ".gitignore", "notes.txt",
}

// statTree is the tree every input starts from, committed with every
// file tracked (ignored ones too), beside an empty directory and a link.
var statTree = map[string]string{
	".gitignore": "*.log\nbuild/\n", "app.log": "tracked, ignored\n",
	"src/a.txt": "aaaa\n", "src/b.txt": "b\n", "src/c.txt": "c\n",
	"deep/e/f/g.txt": "g\n", "logs/a.log": "log\n", "build/keep.txt": "kept\n", "build/o0": "out\n",
}

// statRules are the contents .gitignore and info/exclude are given.
var statRules = []string{"*.log\nbuild/\n", "build/\n", "*.log\nbuild/\nsrc/b.txt\n", "", "*.log\n!src/app.log\n", "deep/\n*.log\n", "logs/\napp.log\n"}

// statOp is one operation: its name, for a failure's message, and what it
// does to the tree at top (of repository g) with path p and variant v.
type statOp struct {
	name string
	do   func(t *testing.T, g *gittest.Repo, p string, v int)
}

var statOps = []statOp{
	{"nothing", func(*testing.T, *gittest.Repo, string, int) {}},
	{"write a file", func(t *testing.T, g *gittest.Repo, p string, v int) {
		clearPath(t, g.Dir, p)
		write(t, filepath.Join(g.Dir, p), []string{"v\n", "v2\n", "a longer content\n", "*.txt\n"}[v%4])
	}},
	{"make a directory", func(t *testing.T, g *gittest.Repo, p string, v int) {
		clearPath(t, g.Dir, p)
		write(t, filepath.Join(g.Dir, p, []string{"a", "b.log", "c.txt", ".gitignore"}[v%4]), "inside\n")
	}},
	{"make a link", func(t *testing.T, g *gittest.Repo, p string, v int) {
		clearPath(t, g.Dir, p)
		os.MkdirAll(filepath.Dir(filepath.Join(g.Dir, p)), 0o755)
		if err := os.Symlink([]string{"dangling", "a.txt", "e", "."}[v%4], filepath.Join(g.Dir, p)); err != nil {
			t.Fatal(err)
		}
	}},
	{"remove", func(t *testing.T, g *gittest.Repo, p string, v int) {
		if onlyDirsAbove(g.Dir, p) {
			os.RemoveAll(filepath.Join(g.Dir, p))
		}
	}},
	{"same size, old times", func(t *testing.T, g *gittest.Repo, p string, v int) {
		path := filepath.Join(g.Dir, p)
		fi, err := os.Lstat(path)
		if err != nil || !fi.Mode().IsRegular() || fi.Size() == 0 || !onlyDirsAbove(g.Dir, p) {
			return
		}
		b, _ := os.ReadFile(path)
		b[0] ^= 1
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
			t.Fatal(err)
		}
	}},
	{"executable bit flipped", func(t *testing.T, g *gittest.Repo, p string, v int) {
		path := filepath.Join(g.Dir, p)
		if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() && onlyDirsAbove(g.Dir, p) {
			os.Chmod(path, fi.Mode()^0o100)
		}
	}},
	{"renamed, same inode", func(t *testing.T, g *gittest.Repo, p string, v int) {
		a, b := filepath.Join(g.Dir, p), filepath.Join(g.Dir, p+"~")
		if !onlyDirsAbove(g.Dir, p) {
			return
		}
		if exists(b) {
			a, b = b, a
		}
		if exists(a) && !exists(b) {
			os.Rename(a, b)
		}
	}},
	{".gitignore written", func(t *testing.T, g *gittest.Repo, p string, v int) {
		clearPath(t, g.Dir, ".gitignore")
		write(t, filepath.Join(g.Dir, ".gitignore"), statRules[v%len(statRules)])
	}},
	{"info/exclude written", func(t *testing.T, g *gittest.Repo, p string, v int) {
		write(t, filepath.Join(g.Dir, ".git", "info", "exclude"), statRules[(v+3)%len(statRules)])
	}},
	{"a git command", func(t *testing.T, g *gittest.Repo, p string, v int) {
		args := [][]string{{"checkout", "--", p}, {"add", "-f", "--", p}, {"rm", "-q", "-r", "--cached", "--", p},
			{"commit", "-q", "-a", "--allow-empty", "-m", "c"}}[v%4]
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = g.Dir, g.Env
		cmd.Run() // a path git does not know is a failure, and no change
	}},
	{"nested repository begun or ended", func(t *testing.T, g *gittest.Repo, p string, v int) {
		dir := filepath.Join(g.Dir, p)
		if exists(filepath.Join(dir, ".git")) {
			os.RemoveAll(filepath.Join(dir, ".git"))
			return
		}
		if p == ".gitignore" || !onlyDirsAbove(g.Dir, p) {
			return
		}
		if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
			clearPath(t, g.Dir, p)
			write(t, filepath.Join(dir, "inner.txt"), "inner\n")
		}
		if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
			t.Fatalf("git init: %v\n%s", err, out)
		}
	}},
}

// onlyDirsAbove reports whether every directory above p (from top) is
// one, not a link: an edit never goes through a link, out of the tree.
func onlyDirsAbove(top, p string) bool {
	for d := filepath.Dir(p); d != "."; d = filepath.Dir(d) {
		if fi, err := os.Lstat(filepath.Join(top, d)); err == nil && !fi.IsDir() {
			return false
		}
	}
	return true
}

// clearPath makes room for a new p: whatever is at p goes, and a file or
// link where a directory above it belongs.
func clearPath(t *testing.T, top, p string) {
	t.Helper()
	var above []string
	for d := filepath.Dir(p); d != "."; d = filepath.Dir(d) {
		above = append(above, d)
	}
	for i := len(above) - 1; i >= 0; i-- {
		if fi, err := os.Lstat(filepath.Join(top, above[i])); err == nil && !fi.IsDir() {
			os.Remove(filepath.Join(top, above[i]))
		}
	}
	if err := os.RemoveAll(filepath.Join(top, p)); err != nil {
		t.Fatal(err)
	}
}

// maxStatOps bounds the operations of one input, and so its time: the
// fuzzing engine takes a worker that spends more than 10 seconds on one
// input while minimizing for a hung one, on a busy machine too.
const maxStatOps = 16

// FuzzStatCheck runs the stat check's differential test (above) on each
// input. Seeds in testdata/fuzz/FuzzStatCheck hold the sequences that
// found its bugs. Each input makes a repository and runs git several
// times an operation: the Makefile gives it FUZZTIME_ON_DISK inputs.
func FuzzStatCheck(f *testing.F) {
	f.Add([]byte{0, 0})
	f.Add(statSequence(1, 24))
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 2*maxStatOps {
			ops = ops[:2*maxStatOps]
		}
		runStatCheck(t, ops)
	})
}

// TestStatCheckMatchesScan runs a long sequence of every operation, each
// followed by nothing, so that the check both vouches and declines many
// times, or the test no longer tests it.
func TestStatCheckMatchesScan(t *testing.T) {
	vouched, declined := runStatCheck(t, statSequence(5, 70))
	if vouched < 30 || declined < 30 {
		t.Fatalf("the stat check vouched %d times and declined %d: the test no longer exercises it", vouched, declined)
	}
	t.Logf("the stat check vouched %d times and declined %d", vouched, declined)
}

// statSequence is n random operations from seed, each operation at least
// once, each followed by nothing.
func statSequence(seed uint64, n int) []byte {
	rng := rand.New(rand.NewPCG(seed, 7))
	var ops []byte
	for i := range n {
		op := rng.IntN(len(statOps))
		if i < len(statOps) {
			op = i
		}
		ops = append(ops, byte(op), byte(rng.IntN(256)), 0, 0)
	}
	return ops
}

// runStatCheck makes the operations of ops on a new repository, each
// followed by a capture checked against git's scans, and returns how
// often the stat check vouched and declined.
func runStatCheck(t *testing.T, ops []byte) (vouched, declined int) {
	g := gittest.NewRepoWith(t, statTree)
	if err := os.Mkdir(filepath.Join(g.Dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.txt", filepath.Join(g.Dir, "src/link")); err != nil {
		t.Fatal(err)
	}
	c, j := capturerOf(t, g)
	// Hashing "happens" later than any edit: the stat data of paths a
	// capture took without writing them into the index are trusted
	// (trustedStat), and the check compares them.
	c.Store.Now = func() time.Time { return time.Now().Add(10 * time.Second) }
	ctx := context.Background()
	var done []string
	capture := func() {
		t.Helper()
		saved := saveWithoutRecord(t, c)
		var trace strings.Builder
		c.Git.Trace = &git.LockedWriter{W: &trace}
		snap, err := c.Snapshot(ctx, j)
		c.Git.Trace = nil
		if err != nil {
			t.Fatalf("%s: %v", strings.Join(done, "; "), err)
		}
		fail := func(what, want string) {
			t.Helper()
			t.Fatalf("after %s:\nthe capture gave %s, %s %s\n%s\ntrace:\n%s", strings.Join(done, "; "), snap.Tree, what, want,
				treeDiff(t, c, snap.Tree, want), trace.String())
		}
		if strings.Contains(trace.String(), "stat check: the tree is the last scan's") {
			vouched++
			if want := scanSaved(t, c, saved); snap.Tree != want.Tree {
				fail("git's scan without the record", want.Tree)
			}
		} else if strings.Contains(trace.String(), "stat check: a scan is needed") {
			declined++
		}
		if len(snap.Skipped) == 0 && len(nestedRepositories(g.Dir)) == 0 {
			if want := addedAfresh(t, c); snap.Tree != want {
				fail("git add -A into a copy of the real index", want)
			}
		}
		if _, err := c.Record(ctx, j, snap, Options{Reason: "test", NoDedup: true}); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i+1 < len(ops); i += 2 {
		op, arg := statOps[int(ops[i])%len(statOps)], int(ops[i+1])
		p := statPaths[arg%len(statPaths)]
		op.do(t, g, p, arg/len(statPaths))
		done = append(done, fmt.Sprintf("%s %s (%d)", op.name, p, arg/len(statPaths)))
		capture()
		// A nested repository is skipped, and a snapshot that skipped
		// anything leaves no record: ended at once, the check goes on.
		if nested := nestedRepositories(g.Dir); len(nested) > 0 {
			for _, dir := range nested {
				os.RemoveAll(dir)
			}
			done = append(done, "nested repositories ended")
			capture()
		}
	}
	return vouched, declined
}

// nestedRepositories are the .git of the repositories nested in the tree
// at top.
func nestedRepositories(top string) []string {
	var found []string
	filepath.WalkDir(top, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == ".git" && path != filepath.Join(top, ".git") {
			found = append(found, path)
		}
		if err == nil && d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		return nil
	})
	return found
}

// addedAfresh is the tree `git add -A` makes of the working tree in a
// copy of the real index: every tracked path and every untracked one not
// ignored, as they are on disk.
func addedAfresh(t *testing.T, c *Capturer) string {
	t.Helper()
	ctx := context.Background()
	index := filepath.Join(t.TempDir(), "index")
	real := filepath.Join(c.Repo.GitDir, "index")
	if err := copyKeepMtime(real, index); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if _, err := c.Git.Run(ctx, git.Cmd{Args: []string{"add", "-A"}, Index: index}); err != nil {
		t.Fatal(err)
	}
	tree, err := c.Git.WriteTree(ctx, index)
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// copyKeepMtime copies the index src to dst as a seed does, its
// modification time kept.
func copyKeepMtime(src, dst string) error {
	data, fi, err := readIndex(src)
	if err != nil {
		return err
	}
	return writeKeepMtime(dst, data, fi.ModTime())
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// saveWithoutRecord copies c's private index (its modification time
// kept, which decides what git compares by content) and state, the
// record left out, into a new directory, for scanSaved.
func saveWithoutRecord(t *testing.T, c *Capturer) string {
	t.Helper()
	dir := t.TempDir()
	if err := copyKeepMtime(c.PrivateIndex(), filepath.Join(dir, "index")); err != nil {
		t.Fatal(err)
	}
	st := c.loadState()
	st.Stat = nil
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "index.state"), string(b))
	return dir
}

// scanSaved is the snapshot git's scan takes of the tree from the copies
// saveWithoutRecord made.
func scanSaved(t *testing.T, c *Capturer, dir string) *Snapshot {
	t.Helper()
	o := &Capturer{Repo: c.Repo, Git: c.Git, Cfg: c.Cfg,
		Store: &store.Store{Dir: dir, Worktree: "main", RefPrefix: "refs/checkpoints/scan/", Git: c.Git, Now: time.Now}}
	snap, err := o.Snapshot(context.Background(), &store.Journal{})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

package restore

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/gittest"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// fixture is a repository with two trees: cur (what the tree holds) and
// target (what a rewind restores).
type fixture struct {
	top, outside string
	r            *git.Runner
	cur, target  string
}

func newFixture(t *testing.T, cur, target map[string]string) *fixture {
	t.Helper()
	g := gittest.NewRepo(t)
	base := t.TempDir()
	f := &fixture{top: g.Dir, outside: filepath.Join(base, "outside")}
	f.r = &git.Runner{Dir: f.top, Env: g.Env}
	ctx := context.Background()
	index := filepath.Join(base, "index")
	tree := func(files map[string]string) string {
		os.Remove(index)
		for p, content := range files {
			out, err := f.r.Run(ctx, git.Cmd{Args: []string{"hash-object", "-w", "--stdin"}, Stdin: []byte(content)})
			if err != nil {
				t.Fatal(err)
			}
			info := "100644 " + strings.TrimSpace(string(out)) + "\t" + p + "\x00"
			if _, err := f.r.Run(ctx, git.Cmd{Args: []string{"update-index", "-z", "--add", "--index-info"},
				Index: index, Stdin: []byte(info)}); err != nil {
				t.Fatal(err)
			}
		}
		out, err := f.r.Run(ctx, git.Cmd{Args: []string{"write-tree"}, Index: index})
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	f.cur, f.target = tree(cur), tree(target)
	for p, content := range cur {
		writeFile(t, filepath.Join(f.top, p), content)
	}
	return f
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) plan(t *testing.T) *Plan {
	t.Helper()
	p, err := New(context.Background(), f.r, Request{Top: f.top, Current: f.cur,
		Target: &store.Record{ID: "k1", Commit: "0000", Tree: f.target}, Options: Options{Outside: "refuse"}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func (f *fixture) apply(t *testing.T, p *Plan) error {
	_, err := f.applyWith(t, p, nil)
	return err
}

// applyWith applies p with a failpoint and returns the applier, whose Left
// lists what was found in the way while writing.
func (f *fixture) applyWith(t *testing.T, p *Plan, fail fault.Failpoints) (*Applier, error) {
	t.Helper()
	staging := filepath.Join(f.top, ".git", "checkpoints", "staging")
	if err := os.MkdirAll(staging, 0o755); err != nil {
		t.Fatal(err)
	}
	a := &Applier{Git: f.r, Top: f.top, Staging: staging, Fail: fail}
	return a, a.Write(context.Background(), p, "k9")
}

// swapForSymlink replaces the directory dir by a symlink to the outside
// directory, holding files of the same names, after the plan was made.
func (f *fixture) swapForSymlink(t *testing.T, dir string, outside map[string]string) {
	t.Helper()
	for p, content := range outside {
		writeFile(t, filepath.Join(f.outside, p), content)
	}
	if err := os.RemoveAll(filepath.Join(f.top, dir)); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(f.outside, filepath.Join(f.top, dir)); err != nil {
		t.Fatal(err)
	}
}

func readDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(b)
	}
	return out
}

// TestApplyNeverWritesThroughSwappedSymlink: a directory replaced by a
// symlink after the plan was made is never written through: the paths
// below it are left (symlink_in_the_way), nothing is written or deleted in
// the directory the link points to, and the rest of the plan is applied.
func TestApplyNeverWritesThroughSwappedSymlink(t *testing.T) {
	f := newFixture(t,
		map[string]string{"d/f": "old", "d/x": "delete me", "top": "old"},
		map[string]string{"d/f": "new", "d/g": "created", "top": "new"})
	p := f.plan(t)
	if got := strings.Join(p.Paths(), " "); got != "d/f d/g d/x top" {
		t.Fatalf("plan paths = %q", got)
	}
	outside := map[string]string{"f": "outside f", "x": "outside x"}
	f.swapForSymlink(t, "d", outside)

	a, err := f.applyWith(t, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, l := range a.Left {
		if l.Reason != LeftSymlinkInWay {
			t.Errorf("%s left as %s, want %s", l.Path, l.Reason, LeftSymlinkInWay)
		}
		left = append(left, l.Path)
	}
	slices.Sort(left)
	if got := strings.Join(left, " "); got != "d/f d/g d/x" {
		t.Errorf("left = %q, want the paths below the symlink", got)
	}
	if b, _ := os.ReadFile(filepath.Join(f.top, "top")); string(b) != "new" {
		t.Errorf("top = %q, want the rest of the plan applied", b)
	}
	if got := readDir(t, f.outside); len(got) != 2 || got["f"] != outside["f"] || got["x"] != outside["x"] {
		t.Errorf("the outside directory changed: %q", got)
	}
	if fi, err := os.Lstat(filepath.Join(f.top, "d")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("d is no longer the symlink: %v %v", fi, err)
	}
}

// TestApplyPutsBackWhatItChanged: a failure part way puts back the paths
// already changed (here a deletion), and only those.
func TestApplyPutsBackWhatItChanged(t *testing.T) {
	f := newFixture(t,
		map[string]string{"a/y": "deleted first", "d/f": "old"},
		map[string]string{"d/f": "new", "d/g": "created"})
	p := f.plan(t)
	// Someone writes d/f after the plan; the rewind fails before it
	// reaches d/f, so that write must survive the put-back.
	writeFile(t, filepath.Join(f.top, "d", "f"), "written meanwhile")
	_, err := f.applyWith(t, p, fault.ParseFailpoints("rename-0"))
	if code := fault.As(err).Code; code != "failed.rewind_undone" {
		t.Fatalf("error code %s (%v), want failed.rewind_undone", code, err)
	}
	if b, err := os.ReadFile(filepath.Join(f.top, "a", "y")); err != nil || string(b) != "deleted first" {
		t.Errorf("a/y was not put back: %q, %v", b, err)
	}
	if b, _ := os.ReadFile(filepath.Join(f.top, "d", "f")); string(b) != "written meanwhile" {
		t.Errorf("d/f = %q: the put-back touched a path the rewind never reached", b)
	}
	if _, err := os.Lstat(filepath.Join(f.top, "d", "g")); !os.IsNotExist(err) {
		t.Errorf("d/g exists: %v", err)
	}
}

// TestApplyDirectoryBecomesFile: a directory of files that the plan deletes
// becomes the file that replaces it, and directories left empty go.
func TestApplyDirectoryBecomesFile(t *testing.T) {
	f := newFixture(t,
		map[string]string{"y/a": "a", "y/deep/b": "b", "z/only": "z"},
		map[string]string{"y": "now a file"})
	p := f.plan(t)
	if err := f.apply(t, p); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(f.top, "y")); err != nil || string(b) != "now a file" {
		t.Errorf("y = %q, %v", b, err)
	}
	if _, err := os.Lstat(filepath.Join(f.top, "z")); !os.IsNotExist(err) {
		t.Errorf("z, left empty, still exists: %v", err)
	}
}

// TestStageFlatOnlyWithoutAttributes stages the same files three ways:
// flat (stage/files/<n>, no directories made) when no attribute applies,
// under their paths when info/attributes names one of them or when one of
// them is a .gitattributes file. Each way, every staged file holds its
// content.
func TestStageFlatOnlyWithoutAttributes(t *testing.T) {
	target := map[string]string{"a/b/c.txt": "c\n", "d/e.txt": "e\n", "top.txt": "t\n"}
	for _, tc := range []struct {
		name, infoAttributes string
		extra                map[string]string
		flat                 bool
	}{
		{name: "no attribute", flat: true},
		{name: "info/attributes", infoAttributes: "*.txt -diff\n"},
		{name: "a .gitattributes among the files", extra: map[string]string{"d/.gitattributes": "*.bin binary\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := maps.Clone(target)
			maps.Copy(files, tc.extra)
			f := newFixture(t, map[string]string{}, files)
			if tc.infoAttributes != "" {
				writeFile(t, filepath.Join(f.top, ".git", "info", "attributes"), tc.infoAttributes)
			}
			p := f.plan(t)
			a := &Applier{Git: f.r, Top: f.top}
			stage := t.TempDir()
			staged, err := a.stage(context.Background(), stage, p.Files)
			if err != nil {
				t.Fatal(err)
			}
			if len(staged) != len(files) {
				t.Fatalf("staged %v, want every one of %d files", staged, len(files))
			}
			for path, at := range staged {
				rel, _ := filepath.Rel(filepath.Join(stage, "files"), at)
				_, numbered := strconv.Atoi(rel)
				if flat := numbered == nil; flat != tc.flat || !tc.flat && rel != path {
					t.Errorf("%s staged as %s, want flat: %v", path, rel, tc.flat)
				}
				if b, err := os.ReadFile(at); err != nil || string(b) != files[path] {
					t.Errorf("%s staged with %q (%v), want %q", path, b, err, files[path])
				}
			}
		})
	}
}

// TestStagePlainAgreesWithCheckout stages files of every mode a rewind
// writes (a file, an executable, a symlink, empty and binary content)
// both ways: from their blobs (Plain) and through checkout-index, under
// an umask that removes bits from both. The staged files must be alike in
// bytes, type and permissions. A .gitattributes among the files makes
// even a plain staging go through checkout-index, which applies it to the
// others.
func TestStagePlainAgreesWithCheckout(t *testing.T) {
	ctx := context.Background()
	g := gittest.NewRepo(t)
	r := &git.Runner{Dir: g.Dir, Env: g.Env}
	blob := func(content string) string {
		out, err := r.Run(ctx, git.Cmd{Args: []string{"hash-object", "-w", "--stdin"}, Stdin: []byte(content)})
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	files := []File{
		{Path: "a/file.txt", Mode: "100644", OID: blob("text\r\nline\n")},
		{Path: "b/run.sh", Mode: "100755", OID: blob("#!/bin/sh\necho hi\n")},
		{Path: "c/link", Mode: "120000", OID: blob("../a/file.txt")},
		{Path: "empty", Mode: "100644", OID: blob("")},
		{Path: "bin.dat", Mode: "100644", OID: blob("\x00\x01\xff\n\x00")},
	}
	old := unix.Umask(0o027)
	defer unix.Umask(old)
	type got struct {
		mode    os.FileMode
		content string
	}
	stage := func(plain bool) map[string]got {
		staging := filepath.Join(t.TempDir(), "staging")
		if err := os.MkdirAll(staging, 0o755); err != nil {
			t.Fatal(err)
		}
		a := &Applier{Git: r, Top: g.Dir, Staging: staging, Plain: plain}
		st, err := a.Stage(ctx, files)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]got{}
		for _, f := range files {
			p := st.paths[f.Path]
			fi, err := os.Lstat(p)
			if err != nil {
				t.Fatal(err)
			}
			var content []byte
			if fi.Mode()&os.ModeSymlink != 0 {
				target, _ := os.Readlink(p)
				content = []byte(target)
			} else if content, err = os.ReadFile(p); err != nil {
				t.Fatal(err)
			}
			out[f.Path] = got{fi.Mode(), string(content)}
		}
		return out
	}
	plain, checkout := stage(true), stage(false)
	if !maps.Equal(plain, checkout) {
		t.Errorf("staged from blobs:\n%v\nby checkout-index:\n%v", plain, checkout)
	}
	if m := plain["b/run.sh"].mode; m != 0o750 {
		t.Errorf("the executable was staged %v, want -rwxr-x--- under umask 027", m)
	}

	g.Git("config", "filter.upper.smudge", "tr a-z A-Z")
	files = append(files, File{Path: ".gitattributes", Mode: "100644", OID: blob("*.txt filter=upper\n")})
	if got := stage(true)["a/file.txt"].content; got != "TEXT\r\nLINE\n" {
		t.Errorf("beside a .gitattributes asking for a smudge filter, the plain staging wrote %q", got)
	}
}

// TestTreeHeldDirectorySwapped: the tree keeps the directories on the way
// to the last file written; one removed and replaced by a symlink before
// the next file in it is written is walked to again, found in the way,
// and nothing is written where the symlink points.
func TestTreeHeldDirectorySwapped(t *testing.T) {
	f := newFixture(t, map[string]string{"d/a": "a", "d/b": "b"}, map[string]string{"d/a": "a", "d/b": "b"})
	staged := filepath.Join(t.TempDir(), "staged")
	tr, err := openTree(f.top)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.close()
	writeFile(t, staged, "new a")
	if _, err := renameInto(tr, filepath.Dir(staged), staged, "d/a"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(f.top, "d", "a")); string(b) != "new a" {
		t.Fatalf("d/a = %q after the first write", b)
	}
	f.swapForSymlink(t, "d", map[string]string{"b": "outside b"})
	writeFile(t, staged, "new b")
	_, err = renameInto(tr, filepath.Dir(staged), staged, "d/b")
	var iw *inWayError
	if !errors.As(err, &iw) {
		t.Fatalf("second write: %v, want the symlink in the way", err)
	}
	if got := readDir(t, f.outside); len(got) != 1 || got["b"] != "outside b" {
		t.Errorf("the outside directory changed: %q", got)
	}
	// A new directory on the way is made once and its files reuse it.
	for _, p := range []string{"e/f/1", "e/f/2", "e/g/3"} {
		writeFile(t, staged, p)
		if _, err := renameInto(tr, filepath.Dir(staged), staged, p); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(filepath.Join(f.top, p)); string(b) != p {
			t.Errorf("%s = %q", p, b)
		}
	}
	if len(tr.held) != 2 || tr.held[1].path != "e/g" {
		t.Errorf("held %v, want the way to e/g", tr.held)
	}
}

// TestRenameIntoExchanges: a file in the way is exchanged with the staged
// one, and the old file waits in the staging directory for its removal;
// a directory in the way is never moved into the staging directory (whose
// removal would delete what it holds): it stays, and the write fails.
func TestRenameIntoExchanges(t *testing.T) {
	f := newFixture(t, map[string]string{"d/a": "old a", "d/b/keep": "kept"}, map[string]string{"d/a": "old a", "d/b/keep": "kept"})
	staging := filepath.Join(t.TempDir(), "staging")
	staged := filepath.Join(staging, "rewind-1", "files", "0")
	tr, err := openTree(f.top)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.close()
	writeFile(t, staged, "new a")
	if _, err := renameInto(tr, staging, staged, "d/a"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(f.top, "d", "a")); string(b) != "new a" {
		t.Errorf("d/a = %q, want the staged file", b)
	}
	if b, err := os.ReadFile(staged); runtime.GOOS == "linux" && string(b) != "old a" {
		t.Errorf("staging holds %q (%v), want the old file exchanged out", b, err)
	}
	writeFile(t, staged, "new b")
	if _, err := renameInto(tr, staging, staged, "d/b"); err == nil {
		t.Fatal("a directory holding a file was replaced")
	}
	if b, _ := os.ReadFile(filepath.Join(f.top, "d", "b", "keep")); string(b) != "kept" {
		t.Errorf("d/b/keep = %q, want it kept", b)
	}
	if b, _ := os.ReadFile(staged); string(b) != "new b" {
		t.Errorf("staging holds %q, want the staged file back", b)
	}
}

package capture

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/gittest"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// oddNames are names that break line- or space-based parsing.
var oddNames = []string{"with space", "-dash", "new\nline", "trailing\n", "tab\tin", `q"uote`,
	`back\slash`, "ünï cødé", " leading space", "a b c d e f g h i j"}

// TestParseStatusSynthetic covers every kind of record, with paths that
// hold spaces, newlines and tabs.
func TestParseStatusSynthetic(t *testing.T) {
	var out strings.Builder
	h := strings.Repeat("a", 40)
	for _, name := range oddNames {
		out.WriteString("1 .M N... 100644 100644 100644 " + h + " " + h + " " + name + "\x00")
	}
	out.WriteString("2 R. N... 100644 100644 100644 " + h + " " + h + " R100 new name\x00old name\x00")
	out.WriteString("u UU N... 100644 100644 100644 100644 " + h + " " + h + " " + h + " con flict\x00")
	out.WriteString("1 .D SC.. 160000 160000 000000 " + h + " " + h + " sub mod\x00")
	out.WriteString("? untracked\nname\x00")
	out.WriteString("? nested repo/\x00")
	out.WriteString("! ignored dir/\x00! ignored\nfile\x00")
	got, ignored := parseStatus([]byte(out.String()))
	if want := []string{"ignored dir/", "ignored\nfile"}; !slices.Equal(ignored, want) {
		t.Errorf("parseStatus ignored %q, want %q", ignored, want)
	}
	var want []entry
	for _, name := range oddNames {
		want = append(want, entry{kind: '1', y: 'M', sub: "N...", path: name})
	}
	want = append(want,
		entry{kind: '1', y: '.', sub: "N...", path: "new name"},
		entry{kind: 'u', y: 'M', sub: "N...", path: "con flict"},
		entry{kind: '1', y: 'D', sub: "SC..", path: "sub mod"},
		entry{kind: '?', y: 'A', path: "untracked\nname"},
		entry{kind: '?', y: 'A', path: "nested repo/"},
	)
	if !slices.Equal(got, want) {
		t.Errorf("parseStatus:\n got %q\nwant %q", got, want)
	}
}

// TestParseDiffRawSynthetic covers every record the tracked half reads,
// with paths that hold spaces, newlines, tabs and colons, and refuses
// output it does not understand rather than guess.
func TestParseDiffRawSynthetic(t *testing.T) {
	var out strings.Builder
	h, z := strings.Repeat("a", 40), strings.Repeat("0", 40)
	for _, name := range append(oddNames, ":100644 100644 "+h+" "+z+" M") {
		out.WriteString(":100644 100644 " + h + " " + z + " M\x00" + name + "\x00")
	}
	out.WriteString(":100644 000000 " + h + " " + z + " D\x00gone\x00")
	out.WriteString(":100644 120000 " + h + " " + z + " T\x00now a link\x00")
	out.WriteString(":000000 100644 " + z + " " + z + " A\x00intent\x00")
	out.WriteString(":000000 000000 " + z + " " + z + " U\x00con flict\x00")
	out.WriteString(":100644 100644 " + h + " " + z + " M\x00con flict\x00")
	out.WriteString(":160000 160000 " + h + " " + z + " M\x00sub mod\x00")
	out.WriteString(":160000 000000 " + h + " " + z + " D\x00gone sub\x00")
	got, err := parseDiffRaw([]byte(out.String()))
	if err != nil {
		t.Fatal(err)
	}
	var want []entry
	for _, name := range append(oddNames, ":100644 100644 "+h+" "+z+" M") {
		want = append(want, entry{kind: '1', y: 'M', sub: "N...", path: name})
	}
	want = append(want,
		entry{kind: '1', y: 'D', sub: "N...", path: "gone"},
		entry{kind: '1', y: 'T', sub: "N...", path: "now a link"},
		entry{kind: '1', y: 'A', sub: "N...", path: "intent"},
		entry{kind: 'u', y: 'M', sub: "N...", path: "con flict"},
		entry{kind: '1', y: 'M', sub: "SC..", path: "sub mod"},
		entry{kind: '1', y: 'D', sub: "S...", path: "gone sub"},
	)
	if !slices.Equal(got, want) {
		t.Errorf("parseDiffRaw:\n got %q\nwant %q", got, want)
	}
	for _, bad := range []string{"M\x00path\x00", ":100644 100644 " + h + " " + z + " M\x00", ":100644 " + h + " M\x00p\x00"} {
		if got, err := parseDiffRaw([]byte(bad)); err == nil {
			t.Errorf("parseDiffRaw(%q) = %q, want an error", bad, got)
		}
	}
}

// TestParseStatusGit parses what git itself prints for odd names, tracked
// (modified, deleted) and untracked.
func TestParseStatusGit(t *testing.T) {
	r := gittest.NewRepo(t)
	dir := r.Dir
	git := func(args ...string) string {
		return r.Git(append([]string{"-c", "core.quotePath=true"}, args...)...)
	}
	for i, name := range oddNames {
		write(t, filepath.Join(dir, "tracked", name), "x")
		write(t, filepath.Join(dir, "untracked", name), "x")
		if i%2 == 0 {
			write(t, filepath.Join(dir, "deleted", name), "x")
		}
	}
	git("add", "tracked", "deleted")
	for _, name := range oddNames {
		write(t, filepath.Join(dir, "tracked", name), "changed")
	}
	os.RemoveAll(filepath.Join(dir, "deleted"))
	got := map[string]byte{}
	entries, _ := parseStatus([]byte(git("status", "--porcelain=v2", "-z", "--untracked-files=all", "--no-renames")))
	for _, e := range entries {
		got[e.path] = e.y
	}
	for i, name := range oddNames {
		if got["tracked/"+name] != 'M' {
			t.Errorf("tracked/%q: status %q, want M", name, got["tracked/"+name])
		}
		if got["untracked/"+name] != 'A' {
			t.Errorf("untracked/%q: status %q, want A (untracked)", name, got["untracked/"+name])
		}
		if i%2 == 0 && got["deleted/"+name] != 'D' {
			t.Errorf("deleted/%q: status %q, want D", name, got["deleted/"+name])
		}
	}
	if n := len(oddNames)*2 + (len(oddNames)+1)/2; len(got) != n {
		t.Errorf("%d entries, want %d: %q", len(got), n, got)
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestScanOneWayOrTwo scans the same tree as one git status and as its
// two halves at once (a small tree is scanned the first way, a large one
// the second): tracked files changed, deleted and made executable,
// untracked files under new directories, ignored ones, odd names, a
// nested repository and an unreadable directory must come out the same.
func TestScanOneWayOrTwo(t *testing.T) {
	initial := map[string]string{".gitignore": "*.log\nbuild/\n", "a/keep.txt": "k\n", "a/gone.txt": "g\n", "b/run.sh": "echo\n"}
	for i, name := range oddNames {
		initial["odd/"+name] = fmt.Sprint(i, "\n")
	}
	c, _ := testRepo(t, initial)
	top := c.Repo.Top
	write(t, filepath.Join(top, "a/keep.txt"), "changed\n")
	os.Remove(filepath.Join(top, "a/gone.txt"))
	os.Chmod(filepath.Join(top, "b/run.sh"), 0o755)
	for _, name := range oddNames {
		write(t, filepath.Join(top, "odd/"+name), "changed "+name)
		write(t, filepath.Join(top, "new/deep/"+name), name)
	}
	write(t, filepath.Join(top, "x.log"), "ignored")
	write(t, filepath.Join(top, "build/out.o"), "ignored")
	nested := gittest.NewRepoWith(t, map[string]string{"n.txt": "n\n"})
	if err := os.Rename(nested.Dir, filepath.Join(top, "nested repo")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(top, "locked/secret.txt"), "s")
	if os.Getuid() != 0 { // root reads any directory
		os.Chmod(filepath.Join(top, "locked"), 0)
		t.Cleanup(func() { os.Chmod(filepath.Join(top, "locked"), 0o755) })
	}
	scan := func(splitAt int64) ([]entry, []store.Skip) {
		c.splitAt = splitAt
		if got := c.splitScan(); got != (splitAt == 1) {
			t.Fatalf("splitScan with the split at %d bytes = %v", splitAt, got)
		}
		entries, unopened, err := c.status(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		slices.SortFunc(entries, func(a, b entry) int { return strings.Compare(a.path, b.path) })
		return entries, unopened
	}
	one, oneSkipped := scan(1 << 40)
	two, twoSkipped := scan(1)
	if !slices.Equal(one, two) || !slices.Equal(oneSkipped, twoSkipped) {
		t.Errorf("one git status:\n %q %v\ntwo halves:\n %q %v", one, oneSkipped, two, twoSkipped)
	}
	if len(one) < 2*len(oddNames)+3 {
		t.Errorf("the scan found %d entries, fewer than the tree's changes: %q", len(one), one)
	}
}

// TestTrackedHalfAsStatus: the split scan's tracked half (git diff)
// reports of the private index what git status does, but for the paths
// that differ from HEAD only, which status lists too and a capture skips:
// content, mode and type changes, deletions, an unmerged path, an
// intent-to-add path, a submodule whose commit moved or that is gone.
// A file whose stat data changed and whose content did not is in neither,
// and the scan leaves the private index refreshed, as status does: no
// later scan hashes it again.
func TestTrackedHalfAsStatus(t *testing.T) {
	c, _ := testRepo(t, map[string]string{"a.txt": "a\n", "b.sh": "echo\n", "link": "l\n",
		"gone.txt": "g\n", "same.txt": "s\n", "conf.txt": "c\n", "keep.txt": "k\n"})
	ctx := context.Background()
	top := c.Repo.Top
	private := func(stdin string, args ...string) string {
		t.Helper()
		out, err := c.Git.Run(ctx, git.Cmd{Args: args, Index: c.PrivateIndex(), Stdin: []byte(stdin)})
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	write(t, filepath.Join(top, "a.txt"), "changed\n")
	os.Chmod(filepath.Join(top, "b.sh"), 0o755)
	os.Remove(filepath.Join(top, "link"))
	if err := os.Symlink("a.txt", filepath.Join(top, "link")); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(top, "gone.txt"))
	write(t, filepath.Join(top, "new.txt"), "intent\n")
	private("", "add", "-N", "new.txt")
	// conf.txt unmerged: its three stages, as a conflicted merge leaves,
	// and a work tree file that differs from them (git diff then lists
	// the path twice: unmerged, and stage 2 against the file).
	write(t, filepath.Join(top, "conf.txt"), "<<<<<<< ours\n")
	blob := strings.TrimSpace(private("", "rev-parse", ":conf.txt"))
	private(fmt.Sprintf("0 %s\tconf.txt\n100644 %[2]s 1\tconf.txt\n100644 %[2]s 2\tconf.txt\n100644 %[2]s 3\tconf.txt\n",
		strings.Repeat("0", 40), blob), "update-index", "--index-info")
	// sub: a submodule whose commit moved; gone: one deleted.
	sub := gittest.NewRepoWith(t, map[string]string{"s.txt": "1\n"})
	old := strings.TrimSpace(sub.Git("rev-parse", "HEAD"))
	sub.Write(map[string]string{"s.txt": "2\n"})
	sub.Git("commit", "-qam", "moved")
	if err := os.Rename(sub.Dir, filepath.Join(top, "sub")); err != nil {
		t.Fatal(err)
	}
	private(fmt.Sprintf("160000 %s\tsub\n160000 %[1]s\tgone-sub\n", old), "update-index", "--add", "--index-info")

	touched := filepath.Join(top, "same.txt")
	scan := func(splitAt int64) []entry {
		t.Helper()
		later := time.Now().Add(time.Hour)
		os.Chtimes(touched, later, later) // same content, new stat data
		c.splitAt = splitAt
		entries, _, err := c.status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		entries = slices.DeleteFunc(entries, func(e entry) bool { return e.kind == '1' && e.y == '.' })
		slices.SortFunc(entries, func(a, b entry) int { return strings.Compare(a.path, b.path) })
		if out := private("", "diff-files", "--name-only", "-z", "--", "same.txt"); out != "" {
			t.Errorf("after the scan (split at %d), the private index still has same.txt's old stat data", splitAt)
		}
		return entries
	}
	two := scan(1)
	one := scan(1 << 40)
	want := []entry{
		{kind: '1', y: 'M', sub: "N...", path: "a.txt"},
		{kind: '1', y: 'M', sub: "N...", path: "b.sh"},
		{kind: 'u', y: 'M', sub: "N...", path: "conf.txt"},
		{kind: '1', y: 'D', sub: "S...", path: "gone-sub"},
		{kind: '1', y: 'D', sub: "N...", path: "gone.txt"},
		{kind: '1', y: 'T', sub: "N...", path: "link"},
		{kind: '1', y: 'A', sub: "N...", path: "new.txt"},
		{kind: '1', y: 'M', sub: "SC..", path: "sub"},
	}
	// The whole status also lists the untracked files; the split scan's
	// walk does too: compare the tracked entries.
	tracked := func(es []entry) []entry {
		return slices.DeleteFunc(slices.Clone(es), func(e entry) bool { return e.kind == '?' })
	}
	if !slices.Equal(tracked(one), want) || !slices.Equal(tracked(two), want) {
		t.Errorf("tracked entries:\nstatus %q\n  diff %q\n  want %q", tracked(one), tracked(two), want)
	}
}

// TestScanNestedRepositoryUnderCache: git's untracked cache, which a
// monitored scan keeps, holds its decision that a directory is, or is
// not, a nested repository in the directory's parent, which a `git init`
// inside it, or the removal of its .git, does not change. The scan must
// still list a directory that became a nested repository as one
// ("late/"), never the files inside it, and the files of one that
// stopped being one. The monitor here always fails, so git checks every
// file and trusts the cache as far as the directories' times go.
func TestScanNestedRepositoryUnderCache(t *testing.T) {
	c, _ := testRepo(t, map[string]string{"a.txt": "a\n"})
	top := c.Repo.Top
	ctx := context.Background()
	c.Git.Fsmonitor = git.NewFsmonitor("false", "unused", c.PrivateIndex())
	write(t, filepath.Join(top, "late/l.txt"), "plain\n")
	old := time.Now().Add(-time.Hour)
	settle := func() { // neither directory racy against the index
		for _, d := range []string{top, filepath.Join(top, "late")} {
			os.Chtimes(d, old, old)
		}
	}
	scan := func() []string {
		t.Helper()
		entries, _, err := c.status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var untracked []string
		for _, e := range entries {
			if e.kind == '?' {
				untracked = append(untracked, e.path)
			}
		}
		slices.Sort(untracked)
		return untracked
	}
	settle()
	if got := scan(); !slices.Equal(got, []string{"late/l.txt"}) {
		t.Fatalf("untracked %q, want late/l.txt", got)
	}
	if index, err := os.ReadFile(c.PrivateIndex()); err != nil || !strings.Contains(string(index), "UNTR") {
		t.Fatalf("the private index holds no untracked cache after a monitored scan (%v)", err)
	}
	if out, err := exec.Command("git", "init", "-q", filepath.Join(top, "late")).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	write(t, filepath.Join(top, "late/new.txt"), "new\n")
	settle()
	if got := scan(); !slices.Equal(got, []string{"late/"}) {
		t.Errorf("untracked %q after git init in late, want late/ (a nested repository)", got)
	}
	os.RemoveAll(filepath.Join(top, "late/.git"))
	settle()
	if got := scan(); !slices.Equal(got, []string{"late/l.txt", "late/new.txt"}) {
		t.Errorf("untracked %q after late/.git was removed, want its files", got)
	}
}

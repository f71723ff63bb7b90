package capture

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/gittest"
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
	got := parseStatus([]byte(out.String()))
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
	for _, e := range parseStatus([]byte(git("status", "--porcelain=v2", "-z", "--untracked-files=all", "--no-renames"))) {
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
	scan := func(splitAt int64) ([]entry, []string) {
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
		t.Errorf("one git status:\n %q %q\ntwo halves:\n %q %q", one, oneSkipped, two, twoSkipped)
	}
	if len(one) < 2*len(oddNames)+3 {
		t.Errorf("the scan found %d entries, fewer than the tree's changes: %q", len(one), one)
	}
}

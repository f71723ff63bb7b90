package bench

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/cli"
)

// TestMain lets the test binary be git-checkpoint and git-rewind, so the
// quick benchmark measures this build without a separate go build.
func TestMain(m *testing.M) {
	switch filepath.Base(os.Args[0]) {
	case "git-checkpoint":
		os.Exit(cli.Checkpoint(os.Args[1:], cli.System()))
	case "git-rewind":
		os.Exit(cli.Rewind(os.Args[1:], cli.System()))
	}
	os.Exit(m.Run())
}

// TestQuick runs the quick mode end to end on a 1,000-file tree: every
// case must run and be reported. It judges no timing.
func TestQuick(t *testing.T) {
	out := quick(t)
	for _, want := range []string{"## 1,000 files", "| git status |", "| fresh index + add -A + write-tree (Claude Code's per-Bash snapshot) |",
		"| git checkpoint, nothing changed |", "| git checkpoint, 1 file changed |",
		"| git checkpoint, 100 files in 100 dirs |", "| git checkpoint, 10 new files |",
		"| per-tool capture of a Write (hook) |", "| 10 parallel per-tool captures (hook), until all exit |",
		"| git rewind of 100 files |", "| git rewind of 100 files, one the .gitignore |",
		"| rewind of 100 files / git status |", "| rewind of 100 files, one the .gitignore / git status (goal) |",
		"| git checkpoint list |", "| git checkpoint status |",
		"| git running a Go program that does nothing |", "| floor of a capture: git status + git running a Go program that does nothing / git status |",
		"| git running a Go program that puts 100 files back durably |",
		"| floor of a rewind of 100 files: git status + git running a Go program that puts them back durably / git status |",
		"| Gemini CLI's shadow repository: capture, nothing changed |", "| Gemini CLI's shadow repository: restore of 100 files |",
		"| OpenCode's snapshot: capture, 1 file changed |", "| OpenCode's snapshot: restore of 100 files |", "| OpenCode's revert: restore of 100 files |",
		"| Cline's stash checkpoint: capture, nothing changed |", "| Cline's stash checkpoint: restore of 100 files |",
		"### Ours / the rivals' methods, 1,000 files, default shape", "| ours / Gemini CLI's method, capture, nothing changed (never slower) |"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "FAIL") {
		t.Errorf("quick mode judged a target:\n%s", out)
	}
}

// TestDiskQuick runs the -disk mode for a few checkpoints on a small tree:
// the table must be printed. It judges nothing (the target applies at
// 100,000 files).
func TestDiskQuick(t *testing.T) {
	out := quick(t, "-disk", "5")
	for _, want := range []string{"## Disk: 5 per-tool checkpoints", "| before gc |", "| after git gc |", "| disk before gc (du: whole blocks) |"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
}

// quick runs the benchmark in quick mode with args, this test binary
// standing in for git-checkpoint and git-rewind, and returns its report;
// a run that does not exit 0 fails the test.
func quick(t *testing.T, args ...string) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	for _, name := range []string{"git-checkpoint", "git-rewind"} {
		if err := os.Symlink(self, filepath.Join(bin, name)); err != nil {
			t.Fatal(err)
		}
	}
	var stdout, stderr bytes.Buffer
	args = append([]string{"-quick", "-bin", bin, "-cache", t.TempDir()}, args...)
	if code := Main(args, os.Environ(), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// TestEditsAreNewEveryRun checks that two runs on one fixture write
// different content for the same edit and the same new file: content an
// earlier run stored is not stored again, and a run that reused it would
// time captures without the cost of new objects.
func TestEditsAreNewEveryRun(t *testing.T) {
	shape := shapeFor("default", 100)
	var got [2][]string
	for k := range got {
		fx := &fixture{shape: shape, dir: t.TempDir()}
		b := newBed(fx, nil, t.TempDir(), "hook")
		writes := append(b.edit(1, b.pick(1, 1, 7)), b.create(1, 1)...)
		for _, p := range append(b.edited, b.created...) {
			if err := os.MkdirAll(filepath.Dir(filepath.Join(fx.dir, p)), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		for _, w := range writes {
			if err := w(); err != nil {
				t.Fatal(err)
			}
		}
		for _, p := range append(b.edited, b.created...) {
			body, err := os.ReadFile(filepath.Join(fx.dir, p))
			if err != nil {
				t.Fatal(err)
			}
			got[k] = append(got[k], string(body))
		}
	}
	for i := range got[0] {
		if got[0][i] == got[1][i] {
			t.Errorf("two runs wrote the same %q", got[0][i])
		}
	}
}

// TestBelowFloor checks the floors' note on a missed target: only for a
// capture that scans the whole tree with git (not the clean one, which
// the stat check spares its scan), and only when its limit is below
// 1 + start/status; for the rewind, below 1 + put/status.
func TestBelowFloor(t *testing.T) {
	ms := func(n int) []sample { return []sample{{dur: time.Duration(n) * time.Millisecond}} }
	r := &result{samples: map[string][]sample{"status": ms(10), "start": ms(12), "put": ms(35)}}
	for _, tc := range []struct {
		t    target
		want string
	}{
		{target{num: "change1", den: "status", limit: 2}, ": below the floor here, 2.20x"},
		{target{num: "clean", den: "status", limit: 2}, ""},
		{target{num: "change100", den: "status", limit: 2.5}, ""},
		{target{num: "tool", den: "status", limit: 0.3}, ""},
		{target{num: "fresh", den: "clean", limit: 4, atLeast: true}, ""},
		{target{num: "rewind100", den: "status", limit: 4}, ": below the floor here, 4.50x"},
		{target{num: "rewind100", den: "status", limit: 5}, ""},
		{target{num: "change1", den: "gemini-change1", limit: 1}, ""},
		{target{num: "rewind100", den: "opencode-restore", limit: 1}, ""},
	} {
		if got := r.belowFloor(tc.t); got != tc.want {
			t.Errorf("%s, limit %v: %q, want %q", tc.t.num, tc.t.limit, got, tc.want)
		}
	}
	if f := (&result{samples: map[string][]sample{"status": ms(10)}}).floor(); f != 0 {
		t.Errorf("floor without the start case: %v, want 0", f)
	}
	if f := (&result{samples: map[string][]sample{"status": ms(10)}}).rewindFloor(); f != 0 {
		t.Errorf("floor of a rewind without the put case: %v, want 0", f)
	}
}

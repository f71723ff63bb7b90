package git

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/agenttest"
)

// TestFsmonitorQuery checks that the hook's answer is passed on only when
// its token is a clock of the same watchman instance and root as the
// index's, that any other answer becomes "everything changed", and that a
// failing hook or an unknown interface version fails the query (git then
// checks every file).
func TestFsmonitorQuery(t *testing.T) {
	hook := filepath.Join(t.TempDir(), "hook")
	script := "#!/bin/sh\n[ \"$1\" = 2 ] || exit 3\nprintf 'c:10:20:1:99\\000a.txt\\000b/c.txt\\000'\n"
	if err := os.WriteFile(hook, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string {
		if k == fsmonitorHookVar {
			return hook
		}
		return ""
	}
	for _, tc := range []struct {
		old, want string
		code      int
	}{
		{"c:10:20:1:50", "c:10:20:1:99\x00a.txt\x00b/c.txt\x00", 0},
		{"c:11:20:1:50", "c:10:20:1:99\x00/\x00", 0}, // watchman restarted
		{"c:10:20:2:50", "c:10:20:1:99\x00/\x00", 0}, // root watched again
		{"builtin:fake", "c:10:20:1:99\x00/\x00", 0},
		{"", "c:10:20:1:99\x00/\x00", 0},
	} {
		var out bytes.Buffer
		code := FsmonitorQuery(context.Background(), []string{"2", tc.old}, getenv, nil, &out, &bytes.Buffer{})
		if code != tc.code || out.String() != tc.want {
			t.Errorf("token %q: exit %d, %q; want %d, %q", tc.old, code, out.String(), tc.code, tc.want)
		}
	}
	var out bytes.Buffer
	if code := FsmonitorQuery(context.Background(), []string{"1", "5"}, getenv, nil, &out, &out); code == 0 {
		t.Errorf("version 1 answered")
	}
	if code := FsmonitorQuery(context.Background(), []string{"2", "c:1:2:3:4"}, func(string) string { return "exit 1" }, nil, &out, &out); code == 0 {
		t.Errorf("a failing hook answered")
	}
	if code := FsmonitorQuery(context.Background(), []string{"2", "c:1:2:3:4"}, func(string) string { return "" }, nil, &out, &out); code == 0 {
		t.Errorf("no hook answered")
	}
}

// TestFsmonitorUnchanged checks the question a capture asks the hook
// before it scans: "nothing changed" only for an answer of the same watch
// that names no path; and that the query run by the scan's git saves the
// token it was given where TokenEnv says.
func TestFsmonitorUnchanged(t *testing.T) {
	dir := t.TempDir()
	hook := func(answer string) string {
		p := filepath.Join(dir, "hook")
		script := "#!/bin/sh\n[ \"$1\" = 2 ] || exit 3\nprintf '" + answer + "'\n"
		if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		answer, token string
		unchanged     bool
	}{
		{`c:10:20:1:99\000`, "c:10:20:1:50", true},
		{`c:10:20:1:99\000\000`, "c:10:20:1:50", true},
		{`c:10:20:1:99\000a.txt\000`, "c:10:20:1:50", false},
		{`c:10:20:1:99\000.git\000.git/index\000`, "c:10:20:1:50", true},
		{`c:10:20:1:99\000.git\000.gitignore\000`, "c:10:20:1:50", false},
		{`c:10:20:1:99\000/\000`, "c:10:20:1:50", false},
		{`c:11:20:1:99\000`, "c:10:20:1:50", false}, // watchman restarted
		{`c:10:20:2:99\000`, "c:10:20:1:50", false}, // root watched again
		{`c:10:20:1:99\000`, "builtin:x", false},
		{`c:10:20:1:99\000`, "", false},
		{`garbage`, "c:10:20:1:50", false},
		{`c:10:20:1:99\000'; exit 1; '`, "c:10:20:1:50", false},
	} {
		r := &Runner{Dir: dir, Fsmonitor: NewFsmonitor("self", hook(tc.answer), "")}
		if unchanged := r.Unchanged(context.Background(), tc.token); unchanged != tc.unchanged {
			t.Errorf("answer %q to %q: %v; want %v", tc.answer, tc.token, unchanged, tc.unchanged)
		}
	}
	if (&Runner{Dir: dir}).Unchanged(context.Background(), "c:10:20:1:50") {
		t.Errorf("a runner without a monitor answered")
	}

	saved := filepath.Join(dir, "token")
	env := map[string]string{fsmonitorHookVar: hook(`c:10:20:1:99\000a.txt\000`), fsmonitorTokenVar: saved}
	var out bytes.Buffer
	if code := FsmonitorQuery(context.Background(), []string{"2", "c:10:20:1:50"}, func(k string) string { return env[k] }, nil, &out, &out); code != 0 {
		t.Fatalf("query failed: %s", out.String())
	}
	if b, err := os.ReadFile(saved); err != nil || string(b) != "c:10:20:1:99" {
		t.Errorf("the query saved %q (%v), want the hook's token", b, err)
	}
}

// TestAskWatchman: a token that is a watchman clock is answered by
// watchman itself, not the hook: nothing changed, a write inside .git
// (which the capture checks itself), a file written, a clock of another
// instance. A tree watchman does not watch is left to the hook.
func TestAskWatchman(t *testing.T) {
	dir, clock := watchedTree(t)
	hook, ran := recordingHook(t, "'c:1:2:3:4\\000/\\000'")
	r := &Runner{Dir: dir, Fsmonitor: NewFsmonitor("self", hook, "")}
	ctx := context.Background()
	write := func(rel string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(rel), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if !r.Unchanged(ctx, clock) {
		t.Error("watchman named a change in a tree nobody touched")
	}
	write(".git/index")
	if !r.Unchanged(ctx, clock) {
		t.Error("a write inside .git counted as a change of the tree")
	}
	write("a.txt")
	if r.Unchanged(ctx, clock) {
		t.Error("watchman did not name a file written after the clock")
	}
	if r.Unchanged(ctx, "c:1:2:3:4") {
		t.Error("another instance's clock was answered as unchanged")
	}
	if b, err := os.ReadFile(ran); err == nil {
		t.Fatalf("the hook ran although watchman answered: %s", b)
	}
	unwatched := &Runner{Dir: t.TempDir(), Fsmonitor: r.Fsmonitor}
	if unwatched.Unchanged(ctx, clock) {
		t.Error("a tree watchman does not watch was answered as unchanged")
	}
	if b, err := os.ReadFile(ran); err != nil || strings.TrimSpace(string(b)) != clock {
		t.Errorf("the hook was asked %q (%v) for a tree watchman does not watch, want once, from the clock", b, err)
	}
}

// TestFsmonitorQueryAsksWatchman checks that the scan's query, like the
// capture's question before it, is answered by watchman itself when the
// token is its clock, and that the hook still answers what watchman
// cannot (a tree it does not watch). git's sample hook starts Perl for
// every scan, at each turn's end of an agent's session (docs/speed.md,
// "A real agent's session").
func TestFsmonitorQueryAsksWatchman(t *testing.T) {
	dir, clock := watchedTree(t)
	hook, ran := recordingHook(t, "'%s\\000/\\000' \"$2\"")
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string {
		if k == fsmonitorHookVar {
			return hook
		}
		return ""
	}
	t.Chdir(dir)
	var answer bytes.Buffer
	if code := FsmonitorQuery(context.Background(), []string{"2", clock}, getenv, os.Environ(), &answer, &bytes.Buffer{}); code != 0 {
		t.Fatalf("the query failed (%d)", code)
	}
	token, paths, _ := strings.Cut(answer.String(), "\x00")
	if !sameWatch(clock, token) || paths != "a.txt\x00" {
		t.Errorf("the query answered %q, want watchman's clock and a.txt", answer.String())
	}
	if b, err := os.ReadFile(ran); err == nil {
		t.Errorf("the hook ran although watchman could answer: %s", b)
	}
	t.Chdir(t.TempDir())
	answer.Reset()
	if code := FsmonitorQuery(context.Background(), []string{"2", clock}, getenv, os.Environ(), &answer, &bytes.Buffer{}); code != 0 {
		t.Fatalf("the query of a tree watchman does not watch failed (%d)", code)
	}
	if b, err := os.ReadFile(ran); err != nil || strings.TrimSpace(string(b)) != clock {
		t.Errorf("the hook was asked %q (%v) for a tree watchman does not watch, want once, from the clock", b, err)
	}
}

// watchedTree is a new directory, with an empty .git, that watchman
// watches until the test ends, and a clock of watchman's from before
// anything was written in it. The test is skipped, saying why, where
// watchman cannot run.
func watchedTree(t *testing.T) (dir, clock string) {
	t.Helper()
	if _, err := exec.LookPath("watchman"); err != nil {
		agenttest.Missing(t, "no watchman on PATH (Debian package watchman): asking it directly is not tested")
	}
	dir = t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("watchman", "watch-project", dir).CombinedOutput(); err != nil || bytes.Contains(out, []byte(`"error"`)) {
		t.Skipf("watchman cannot watch a directory here: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("watchman", "watch-del", dir).Run() })
	out, err := exec.Command("watchman", "clock", dir).Output()
	if err != nil {
		t.Fatal(err)
	}
	var c struct{ Clock string }
	if err := json.Unmarshal(out, &c); err != nil || !strings.HasPrefix(c.Clock, "c:") {
		t.Fatalf("watchman clock printed %s (%v)", out, err)
	}
	return dir, c.Clock
}

// recordingHook is an fsmonitor hook that appends the token it was asked
// from to the file ran and answers as printf with the arguments given.
func recordingHook(t *testing.T, printf string) (hook, ran string) {
	t.Helper()
	ran = filepath.Join(t.TempDir(), "ran")
	hook = filepath.Join(t.TempDir(), "hook")
	script := "#!/bin/sh\necho \"$2\" >>" + ran + "\nprintf " + printf + "\n"
	if err := os.WriteFile(hook, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return hook, ran
}

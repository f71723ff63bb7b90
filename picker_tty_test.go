package checkpoint_test

import (
	"maps"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/agenttest"
)

// pickerRepo makes a repository with three turns recorded by the Claude
// Code hooks, with their prompts: t1 "add a cache" creates cache.txt, t2
// "fix the bug" edits a.txt, t3 "write the docs" creates docs.md. It
// returns the manifest of the tree at each turn's start.
func pickerRepo(t *testing.T) (dir string, env []string, starts map[string]map[string]string) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	env = gitEnv(t)
	must(t, 0, dir, env, "git", "init", "-q", "-b", "main")
	writeFile(t, filepath.Join(dir, "a.txt"), "one\n", 0o644)
	must(t, 0, dir, env, "git", "add", "a.txt")
	must(t, 0, dir, env, "git", "commit", "-q", "-m", "first")
	hook := func(event, prompt string) {
		t.Helper()
		if r := runInput(t, dir, env, `{"session_id":"s1","cwd":"`+dir+`","hook_event_name":"`+event+`","prompt":"`+prompt+`"}`,
			"git", "checkpoint", "hook", "claude", event); r.code != 0 {
			t.Fatalf("hook %s: exit %d\n%s%s", event, r.code, r.stdout, r.stderr)
		}
	}
	starts = map[string]map[string]string{}
	for _, turn := range []struct{ id, prompt, file, content string }{
		{"t1", "add a cache", "cache.txt", "cache\n"},
		{"t2", "fix the bug", "a.txt", "two\n"},
		{"t3", "write the docs", "docs.md", "docs\n"},
	} {
		hook("UserPromptSubmit", turn.prompt)
		starts[turn.id] = manifest(t, dir)
		writeFile(t, filepath.Join(dir, turn.file), turn.content, 0o644)
		hook("Stop", "")
	}
	return dir, env, starts
}

// TestPickerRewindsOnTerminal drives `git rewind -i` on a real 80x24
// terminal: the list shows the prompts newest first with the plan of the
// highlighted turn, j and the arrows move the highlight and the plan with
// it, Enter leads to the usual plan and question, and "y" rewinds the tree
// to the chosen turn's start.
func TestPickerRewindsOnTerminal(t *testing.T) {
	dir, env, starts := pickerRepo(t)
	term := agenttest.StartTerminal(t, env, dir, 80, 24, `git rewind -i; echo "EXIT=$?"`)

	s := term.WaitFor("a rewind to t3 changes 1 path")
	t.Logf("the picker:\n%s", s)
	rows := regexp.MustCompile(`(?m)^(> |  )(t\d)  \d+s ago +(~\d \+\d -\d)  (.*)$`).FindAllStringSubmatch(s, -1)
	var list []string
	for _, r := range rows {
		list = append(list, strings.Join(r[1:], "|"))
	}
	want := []string{"> |t3|~0 +1 -0|write the docs", "  |t2|~1 +0 -0|fix the bug", "  |t1|~0 +1 -0|add a cache"}
	if strings.Join(list, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the list is\n%s\nwant\n%s\non the screen:\n%s", strings.Join(list, "\n"), strings.Join(want, "\n"), s)
	}
	if !strings.Contains(s, "\n  delete turn         docs.md\n") || strings.Contains(s, "a.txt") {
		t.Errorf("the plan of t3 is not deleting docs.md alone:\n%s", s)
	}

	term.Keys("j")
	s = term.WaitFor("> t2", "a rewind to t2 changes 2 paths")
	if !strings.Contains(s, "\n  modify turn         a.txt\n") || !strings.Contains(s, "\n  t3  ") {
		t.Errorf("after j:\n%s", s)
	}
	term.Keys("Down")
	s = term.WaitFor("> t1", "a rewind to t1 changes 3 paths")
	if !strings.Contains(s, "\n  delete turn         cache.txt\n") || !strings.Contains(s, "\n  t2  ") {
		t.Errorf("after Down:\n%s", s)
	}
	term.Keys("Up")
	term.WaitFor("> t2", "a rewind to t2 changes 2 paths")
	term.Keys("Down")
	term.WaitFor("> t1", "a rewind to t1 changes 3 paths")

	term.Keys("Enter")
	s = term.WaitFor("Apply this plan? [y/N]")
	if !strings.Contains(s, "rewind to k1 (turn_start, ") || !strings.Contains(s, "3 paths: 1 modify, 2 delete") ||
		strings.Contains(s, "j/k or arrows") {
		t.Errorf("after Enter, not the usual plan alone:\n%s", s)
	}
	term.Keys("y", "Enter")
	s = term.WaitFor("EXIT=")
	if !strings.Contains(s, "EXIT=0") || !strings.Contains(s, "rewound to k1") {
		t.Fatalf("the rewind after y:\n%s", s)
	}
	if got := manifest(t, dir); !maps.Equal(got, starts["t1"]) {
		t.Errorf("the tree is\n%v\nwant t1's start\n%v", got, starts["t1"])
	}
}

// TestPickerLeavesOnTerminal leaves the picker with q, Esc and Ctrl-C in
// turn: each exits 2 saying nothing was changed, gives the terminal back
// in the mode it found it, and leaves the tree and the checkpoints as
// they were.
func TestPickerLeavesOnTerminal(t *testing.T) {
	dir, env, _ := pickerRepo(t)
	writeFile(t, filepath.Join(dir, "notes.txt"), "mine\n", 0o644)
	tree := manifest(t, dir)
	refs := must(t, 0, dir, env, "git", "for-each-ref", "refs/checkpoints").stdout
	term := agenttest.StartTerminal(t, env, dir, 80, 24, `before=$(stty -g)
for i in 1 2 3; do
	git rewind -i
	echo "EXIT$i=$?"
	if [ "$(stty -g)" = "$before" ]; then echo "TTY$i=same"; else echo "TTY$i=changed"; fi
	read next
done`)
	for i, key := range []string{"q", "Escape", "C-c"} {
		n := string(rune('1' + i))
		term.WaitFor("> t3", "a rewind to t3 changes 2 paths")
		term.Keys("j")
		term.WaitFor("> t2", "a rewind to t2 changes 3 paths", "1 path changed outside agent turns")
		term.Keys(key)
		s := term.WaitFor("TTY" + n + "=")
		if !strings.Contains(s, "EXIT"+n+"=2") || !strings.Contains(s, "TTY"+n+"=same") {
			t.Errorf("after %s:\n%s", key, s)
		}
		if got := strings.Count(s, "git-rewind: error: rewind aborted; nothing was changed"); got != i+1 {
			t.Errorf("after %s the screen says %d times that nothing was changed:\n%s", key, got, s)
		}
		term.Keys("Enter") // the next run
	}
	if got := manifest(t, dir); !maps.Equal(got, tree) {
		t.Errorf("the tree changed:\n%v\nwas\n%v", got, tree)
	}
	if got := must(t, 0, dir, env, "git", "for-each-ref", "refs/checkpoints").stdout; got != refs {
		t.Errorf("the checkpoints changed:\n%s\nwere\n%s", got, refs)
	}
}

// TestPickerDryRunOnTerminal passes the picker's other flags on to the
// rewind chosen: with -n the plan is printed and nothing changes; with -y
// and a path the plans shown hold that path alone, and the rewind is
// applied without the question.
func TestPickerDryRunOnTerminal(t *testing.T) {
	dir, env, starts := pickerRepo(t)
	tree := manifest(t, dir)
	term := agenttest.StartTerminal(t, env, dir, 80, 24, `git rewind -i -n; echo "EXIT1=$?"; read next
git rewind -i -y -- a.txt; echo "EXIT2=$?"`)
	term.WaitFor("> t3", "a rewind to t3 changes 1 path")
	term.Keys("j")
	term.WaitFor("> t2", "a rewind to t2 changes 2 paths")
	term.Keys("Enter")
	s := term.WaitFor("EXIT1=")
	if !strings.Contains(s, "EXIT1=0") || !regexp.MustCompile(`(?m)^rewind to k\d+ \(.*\) plan p1-[0-9a-f]{16}$`).MatchString(s) ||
		!strings.Contains(s, "2 paths: 1 modify, 1 delete") || strings.Contains(s, "Apply this plan?") {
		t.Errorf("the dry run of t2:\n%s", s)
	}
	if got := manifest(t, dir); !maps.Equal(got, tree) {
		t.Errorf("the dry run changed the tree:\n%v\nwas\n%v", got, tree)
	}

	term.Keys("Enter")
	term.WaitFor("> t3", "the working tree already matches t3: nothing to do")
	term.Keys("j")
	s = term.WaitFor("> t2", "a rewind to t2 changes 1 path")
	if !strings.Contains(s, "\n  modify turn         a.txt\n") || strings.Contains(s, "docs.md") {
		t.Errorf("the plan of t2 for a.txt alone:\n%s", s)
	}
	term.Keys("Enter")
	s = term.WaitFor("EXIT2=")
	if !strings.Contains(s, "EXIT2=0") || !strings.Contains(s, "rewound to") || strings.Contains(s, "Apply this plan?") {
		t.Errorf("the rewind of a.txt to t2 with --yes:\n%s", s)
	}
	tree["a.txt"] = starts["t2"]["a.txt"]
	if got := manifest(t, dir); !maps.Equal(got, tree) {
		t.Errorf("after the rewind of a.txt the tree is\n%v\nwant\n%v", got, tree)
	}
}

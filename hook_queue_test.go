package checkpoint_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// TestHookQueue: per-tool hooks that find the store lock taken leave
// their requests in the queue and wait; the first to get the lock takes
// its own checkpoint and the others' as one group (one update-ref for
// all of them, every commit in the group's pack: no commit-tree) and
// answers them, and the answered hooks run no git process at all (their
// discovery and configuration are kept in the store). A request whose
// holder claimed it and died unanswered is taken by its own hook.
// Left-over queue files of a dead process an hour old are removed. Real
// hook processes throughout.
func TestHookQueue(t *testing.T) {
	const calls = 5
	env := gitEnv(t, "GIT_CHECKPOINT_TRACE=1")
	dir := filepath.Join(t.TempDir(), "tree")
	for i := 0; i < 40; i++ {
		writeFile(t, filepath.Join(dir, fmt.Sprintf("src/d%d/f%02d.txt", i/10, i)), fmt.Sprintf("file %d\n", i), 0o644)
	}
	must(t, 0, dir, env, "git", "init", "-q", "-b", "main")
	must(t, 0, dir, env, "git", "add", ".")
	must(t, 0, dir, env, "git", "commit", "-q", "-m", "init")
	env = append(env, "CLAUDE_PROJECT_DIR="+dir)
	must(t, 0, dir, env, "git", "checkpoint")
	// The second keeps the configuration and discovery's answer (the
	// first made the store), so that no hook runs git config or
	// rev-parse (config.Cache).
	must(t, 0, dir, env, "git", "checkpoint")
	stateDir := strings.TrimSpace(must(t, 0, dir, env, "git", "rev-parse", "--path-format=absolute", "--git-path", "checkpoints").stdout)
	queue := filepath.Join(stateDir, "queue")

	// A dead process's left-overs, an hour old and more.
	if err := os.MkdirAll(queue, 0o755); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-2 * time.Hour)
	for _, name := range []string{"0000000000000000001-1.run", "0000000000000000001-1.done"} {
		writeFile(t, filepath.Join(queue, name), "k99\n", 0o644)
		os.Chtimes(filepath.Join(queue, name), old, old)
	}

	lock := flock.New(filepath.Join(stateDir, "lock"))
	if err := lock.Lock(); err != nil {
		t.Fatal(err)
	}
	files := make([]string, calls)
	hooks := make([]func() result, calls)
	for i := range files {
		files[i] = fmt.Sprintf("src/d%d/w%d.txt", i%4, i)
		writeFile(t, filepath.Join(dir, files[i]), files[i]+"\n", 0o644)
		cmd, stdout, stderr := command(dir, env, "git", "checkpoint", "hook", "claude")
		cmd.Stdin = strings.NewReader(string(claudePayload(t, dir, "5e550000-0000-4000-8000-000000000001", "PostToolUse", files[i])))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		hooks[i] = func() result { return finish(t, cmd, stdout, stderr) }
	}
	var asked []string
	for deadline := time.Now().Add(30 * time.Second); len(asked) < calls; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d hooks asked in the queue while the lock was held: %q", len(asked), calls, asked)
		}
		asked, _ = filepath.Glob(filepath.Join(queue, "*.req"))
	}
	// The oldest request is claimed by a holder that dies before it
	// answers: its hook must take its checkpoint itself.
	dead := strings.TrimSuffix(asked[0], ".req")
	if err := os.Rename(dead+".req", dead+".run"); err != nil {
		t.Fatal(err)
	}
	payload, err := os.ReadFile(dead + ".run")
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(dead + ".run")
	lock.Unlock()

	// Whoever gets the lock first takes its own checkpoint and the
	// waiting requests as one group. The hook of the dead request takes
	// its own (in the holder's group, if it is the holder; else in a
	// group of its own); every other is answered, and runs no git
	// process (discovery and the configuration are kept).
	groups, answered := 0, 0
	for i, h := range hooks {
		r := h()
		if r.code != 0 || r.stdout != "" {
			t.Errorf("hook %d: exit %d, stdout %q", i, r.code, r.stdout)
		}
		ran := strings.Count(r.stderr, "trace: git ")
		refs := strings.Count(r.stderr, "trace: git update-ref --no-deref --stdin")
		groups += refs
		if strings.Contains(r.stderr, "trace: git commit-tree") || strings.Contains(r.stderr, "trace: git update-ref --no-deref refs/") {
			t.Errorf("hook %d took a checkpoint outside a group (commit-tree, or a ref of its own):\n%s", i, r.stderr)
		}
		switch {
		case strings.Contains(string(payload), files[i]):
			if refs != 1 {
				t.Errorf("the hook whose request died unanswered (%s) did not take its own checkpoint:\n%s", files[i], r.stderr)
			}
		case refs == 0:
			answered++
			if ran != 0 {
				t.Errorf("an answered hook (%s) ran %d git processes, want none (discovery and configuration kept):\n%s", files[i], ran, r.stderr)
			}
		}
	}
	if groups < 1 || groups > 2 || answered < calls-2 {
		t.Errorf("%d groups took %d requests; want one or two groups (the holder's, the dead request's), %d or more answered", groups, answered, calls-2)
	}
	if log, err := os.ReadFile(filepath.Join(stateDir, "hook.log")); err == nil {
		t.Errorf("hook.log:\n%s", log)
	}
	if left, _ := os.ReadDir(queue); len(left) > 0 {
		var names []string
		for _, e := range left {
			names = append(names, e.Name())
		}
		t.Errorf("the queue holds %q after every hook ended", names)
	}

	// One checkpoint per call, naming and holding its file, each after
	// the one before; then a full capture finds nothing new.
	j := wholeJournal(t, stateDir)
	named := map[string]bool{}
	var prev *store.Record
	for _, r := range j.Checkpoints() {
		if prev != nil && r.Previous != prev.ID+" "+prev.Commit {
			t.Errorf("%s follows %q, not %s", r.ID, r.Previous, prev.ID)
		}
		prev = r
		if r.Reason != store.ReasonTool {
			continue
		}
		if len(r.Paths) != 1 || named[r.Paths[0]] {
			t.Errorf("tool checkpoint %s names %q", r.ID, r.Paths)
			continue
		}
		named[r.Paths[0]] = true
		if got := must(t, 0, dir, env, "git", "cat-file", "blob", r.Commit+":"+r.Paths[0]).stdout; got != r.Paths[0]+"\n" {
			t.Errorf("%s holds %s as %q", r.ID, r.Paths[0], got)
		}
	}
	if len(named) != calls {
		t.Errorf("%d tool checkpoints name %d files, want %d", len(j.Checkpoints())-1, len(named), calls)
	}
	if out := must(t, 0, dir, env, "git", "checkpoint").stdout; !strings.Contains(out, "reused") {
		t.Errorf("a full capture after the hooks made a new checkpoint: %s", out)
	}
}

// TestHookAnsweredAsItGivesUp: a hook whose wait for the lock runs out
// just as the holder answers its request took its checkpoint all the same,
// and says nothing failed.
func TestHookAnsweredAsItGivesUp(t *testing.T) {
	env := gitEnv(t)
	dir := filepath.Join(t.TempDir(), "tree")
	writeFile(t, filepath.Join(dir, "a.txt"), "a\n", 0o644)
	must(t, 0, dir, env, "git", "init", "-q", "-b", "main")
	must(t, 0, dir, env, "git", "add", ".")
	must(t, 0, dir, env, "git", "commit", "-q", "-m", "init")
	must(t, 0, dir, env, "git", "config", "checkpoint.hookTimeout", "2s")
	env = append(env, "CLAUDE_PROJECT_DIR="+dir)
	must(t, 0, dir, env, "git", "checkpoint")
	// The second keeps the configuration and discovery's answer (the
	// first made the store), so that no hook runs git config or
	// rev-parse (config.Cache).
	must(t, 0, dir, env, "git", "checkpoint")
	stateDir := strings.TrimSpace(must(t, 0, dir, env, "git", "rev-parse", "--path-format=absolute", "--git-path", "checkpoints").stdout)
	lock := flock.New(filepath.Join(stateDir, "lock"))
	if err := lock.Lock(); err != nil {
		t.Fatal(err)
	}
	defer lock.Unlock()
	writeFile(t, filepath.Join(dir, "b.txt"), "b.txt\n", 0o644)
	cmd, stdout, stderr := command(dir, env, "git", "checkpoint", "hook", "claude")
	cmd.Stdin = strings.NewReader(string(claudePayload(t, dir, "5e550000-0000-4000-8000-000000000002", "PostToolUse", "b.txt")))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var asked []string
	for deadline := time.Now().Add(10 * time.Second); len(asked) == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the hook left no request while the lock was held")
		}
		asked, _ = filepath.Glob(filepath.Join(stateDir, "queue", "*.req"))
	}
	// As a holder does: claim, answer, let the claim go; the lock stays
	// held until the hook has given up waiting.
	base := strings.TrimSuffix(asked[0], ".req")
	if err := os.Rename(base+".req", base+".run"); err != nil {
		t.Fatal(err)
	}
	writeFile(t, base+".done", "k2\n", 0o644)
	os.Remove(base + ".run")
	r := finish(t, cmd, stdout, stderr)
	if r.code != 0 || r.stdout != "" {
		t.Fatalf("hook: exit %d, stdout %q", r.code, r.stdout)
	}
	if log, err := os.ReadFile(filepath.Join(stateDir, "hook.log")); err == nil {
		t.Errorf("an answered hook logged a failure:\n%s", log)
	}
	if _, err := os.Stat(base + ".done"); err == nil {
		t.Error("the hook left its answer behind")
	}
}

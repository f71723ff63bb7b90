package hook

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/agents"
	"github.com/git-checkpoint/git-checkpoint/internal/gittest"
	"github.com/git-checkpoint/git-checkpoint/internal/workspace"
)

const (
	sessionA = "5e550000-0000-4000-8000-00000000000a"
	sessionB = "5e550000-0000-4000-8000-00000000000b"
)

// claude is a Claude Code event of session in dir, as its hooks pass it
// on stdin; file is the file a PostToolUse wrote.
func claude(t *testing.T, dir, session, event, file string) string {
	t.Helper()
	p := map[string]any{"session_id": session, "cwd": dir, "hook_event_name": event,
		"transcript_path": filepath.Join(dir, ".claude-home", session+".jsonl")}
	switch event {
	case "UserPromptSubmit":
		p["prompt"] = "write the files"
	case "PostToolUse":
		abs := filepath.Join(dir, file)
		p["tool_name"] = "Write"
		p["tool_input"] = map[string]any{"file_path": abs, "content": file + "\n"}
		p["tool_response"] = map[string]any{"type": "create", "filePath": abs, "content": file + "\n"}
	case "Stop":
		p["stop_hook_active"] = false
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// open opens a workspace of its own on the repository, as each hook
// process does; trace receives its git trace.
func open(t *testing.T, g *gittest.Repo, trace io.Writer) *workspace.Workspace {
	t.Helper()
	env := g.Env
	if trace != nil {
		env = append(env[:len(env):len(env)], "GIT_CHECKPOINT_TRACE=1")
	}
	w, err := workspace.Open(context.Background(), workspace.Options{Dir: g.Dir, Environ: env, Now: time.Now, Warnings: trace})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// handle runs one hook call of Claude Code on w, as Run does once the
// workspace is open.
func handle(t *testing.T, w *workspace.Workspace, payload string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ev, err := Read(ctx, "claude", nil, strings.NewReader(payload))
	if err != nil {
		t.Fatal(err)
	}
	if out := Handle(ctx, w, "claude", time.Now, ev, nil); len(out) > 0 {
		t.Errorf("the hook replied %q", out)
	}
}

// records lists the journal's records, reuse records too, as "reason
// turn session-letter paths".
func records(t *testing.T, w *workspace.Workspace) []string {
	t.Helper()
	j, err := w.Store.Journal()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	recs := j.Records()
	for i := range recs.Len() {
		r := recs.Get(i)
		who := map[string]string{sessionA: "A", sessionB: "B", "": "-"}[r.Session]
		out = append(out, strings.TrimSpace(strings.Join([]string{r.Reason, r.Turn, who, strings.Join(r.Paths, ",")}, " ")))
	}
	return out
}

// noLog fails the test when the hooks wrote to hook.log.
func noLog(t *testing.T, w *workspace.Workspace) {
	t.Helper()
	if log, err := os.ReadFile(w.Store.Path("hook.log")); err == nil {
		t.Errorf("hook.log:\n%s", log)
	}
}

// TestTurnNumbering: two sessions on one repository, each hook call in a
// workspace of its own as in its own process. A prompt numbers a new
// turn after every turn of the journal, whichever session took it; a
// tool call and a stop belong to their own session's current turn, also
// while the other session's turn is newer.
func TestTurnNumbering(t *testing.T) {
	g := gittest.NewRepoWith(t, map[string]string{"a.txt": "a\n"})
	call := func(session, event, file string) {
		t.Helper()
		if file != "" {
			g.Write(map[string]string{file: file + "\n"})
		}
		handle(t, open(t, g, nil), claude(t, g.Dir, session, event, file))
	}
	call(sessionA, "UserPromptSubmit", "")
	call(sessionB, "UserPromptSubmit", "")
	call(sessionA, "PostToolUse", "from-a.txt")
	call(sessionB, "PostToolUse", "from-b.txt")
	call(sessionA, "Stop", "")
	call(sessionA, "UserPromptSubmit", "")
	call(sessionB, "Stop", "")
	w := open(t, g, nil)
	want := []string{
		"turn_start t1 A",
		"turn_start t2 B",
		"tool t1 A from-a.txt",
		"tool t2 B from-b.txt",
		"turn_end t1 A",
		"turn_start t3 A",
		"turn_end t2 B",
	}
	if got := records(t, w); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("checkpoints:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	noLog(t, w)
}

// TestQueueHandOff: a per-tool hook that finds the store lock taken by
// another process leaves its request in the queue and waits; the holder
// takes its checkpoint, in the turn of the waiting hook's session, and
// answers it; the waiting hook then takes no checkpoint of its own and
// writes no ref.
func TestQueueHandOff(t *testing.T) {
	g := gittest.NewRepoWith(t, map[string]string{"a.txt": "a\n"})
	handle(t, open(t, g, nil), claude(t, g.Dir, sessionA, "UserPromptSubmit", ""))
	handle(t, open(t, g, nil), claude(t, g.Dir, sessionB, "UserPromptSubmit", ""))

	var holderTrace, waiterTrace strings.Builder
	holder := open(t, g, &holderTrace)
	unlock, err := holder.Store.Lock(context.Background(), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	g.Write(map[string]string{"b.txt": "b\n"})
	waiter := open(t, g, &waiterTrace)
	done := make(chan struct{})
	go func() {
		defer close(done)
		handle(t, waiter, claude(t, g.Dir, sessionA, "PostToolUse", "b.txt"))
	}()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if asked, _ := filepath.Glob(holder.Store.Path("queue/*.req")); len(asked) > 0 {
			break
		}
		if time.Now().After(deadline) {
			unlock()
			<-done
			t.Fatal("the waiting hook left no request in the queue")
		}
	}
	// As a holder does before it lets the lock go.
	h := &call{w: holder, agent: "claude", now: time.Now}
	if took := h.takeWaiting(context.Background(), nil, nil); took {
		t.Error("takeWaiting says it took the holder's own capture, which it was not given")
	}
	unlock()
	<-done

	want := []string{"turn_start t1 A", "turn_start t2 B", "tool t1 A b.txt"}
	if got := records(t, holder); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("checkpoints:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n := strings.Count(holderTrace.String(), "trace: git update-ref --no-deref --stdin"); n != 1 {
		t.Errorf("the holder wrote %d groups of refs, want 1:\n%s", n, holderTrace.String())
	}
	if strings.Contains(waiterTrace.String(), "update-ref") || strings.Contains(waiterTrace.String(), "commit-tree") {
		t.Errorf("the answered hook took a checkpoint of its own:\n%s", waiterTrace.String())
	}
	if left, _ := os.ReadDir(holder.Store.Path("queue")); len(left) > 0 {
		t.Errorf("the queue holds %d files after the hand-off", len(left))
	}
	noLog(t, holder)
}

// TestReadGivesUp: a hook whose agent never writes its event, nor closes
// stdin, gives up when its time is out, and says why.
func TestReadGivesUp(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := Read(ctx, "claude", nil, r)
	if err == nil || !strings.Contains(err.Error(), "no event arrived on stdin in time") {
		t.Errorf("Read: %v, want no event in time", err)
	}
}

// TestReadCutsAtMaxInput: an event over agents.MaxInput is cut there and
// marked truncated, and the rest of stdin is still read, so the agent
// never blocks writing it.
func TestReadCutsAtMaxInput(t *testing.T) {
	dir := t.TempDir()
	payload := claude(t, dir, sessionA, "PostToolUse", "b.txt")
	payload = strings.Replace(payload, `"content":"b.txt\n"`, `"content":"`+strings.Repeat("x", 2*agents.MaxInput)+`"`, 1)
	r, w := io.Pipe()
	written := make(chan error, 1)
	go func() {
		_, err := io.WriteString(w, payload)
		w.Close()
		written <- err
	}()
	ev, err := Read(context.Background(), "claude", nil, r)
	if err != nil && !errors.Is(err, agents.ErrUnknown) {
		t.Logf("Read: %v", err) // a cut event may not parse whole; its fields before the cut are read
	}
	if ev == nil || !ev.Truncated || ev.Session != sessionA {
		t.Errorf("Read gave %+v, want session A, truncated", ev)
	}
	select {
	case err := <-written:
		if err != nil {
			t.Errorf("the agent's write failed: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Error("the agent still blocks writing the rest of its event")
	}
}

// TestTree: the project directory an agent names in the environment wins
// over the event's cwd, which wins over the directory the hook runs in;
// each only when it is a directory.
func TestTree(t *testing.T) {
	project, cwd, here := t.TempDir(), t.TempDir(), t.TempDir()
	env := func(v string) func(string) string {
		return func(name string) string {
			if name == "CLAUDE_PROJECT_DIR" {
				return v
			}
			return ""
		}
	}
	ev := &agents.Event{Cwd: cwd}
	for _, c := range []struct {
		name   string
		getenv func(string) string
		ev     *agents.Event
		want   string
	}{
		{"project dir", env(project), ev, project},
		{"project dir missing", env(filepath.Join(project, "gone")), ev, cwd},
		{"cwd", env(""), ev, cwd},
		{"relative cwd", env(""), &agents.Event{Cwd: "sub"}, here},
		{"no event", env(""), nil, here},
	} {
		if got := Tree(c.getenv, "claude", c.ev, here); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
	if got := Tree(env(project), "codex", ev, here); got != cwd {
		t.Errorf("codex, which names no project dir, with CLAUDE_PROJECT_DIR set: %s, want the cwd %s", got, cwd)
	}
}

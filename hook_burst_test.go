package checkpoint_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/agents"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// claudePayload is a Claude Code hook payload as the real agent sends it
// (the shape of its UserPromptSubmit, PostToolUse of Write, and Stop), for
// session and, for a Write, the file it wrote.
func claudePayload(t *testing.T, dir, session, event, file string) []byte {
	t.Helper()
	p := map[string]any{
		"session_id":      session,
		"transcript_path": filepath.Join(dir, ".claude-home", session+".jsonl"),
		"cwd":             dir,
		"prompt_id":       "928d3072-1184-4b46-ac32-a052b1812de4",
		"permission_mode": "bypassPermissions",
		"hook_event_name": event,
	}
	switch event {
	case "UserPromptSubmit":
		p["prompt"] = "write the files"
	case "PostToolUse":
		abs := filepath.Join(dir, file)
		p["effort"] = map[string]any{"level": "medium"}
		p["tool_name"] = "Write"
		p["tool_input"] = map[string]any{"file_path": abs, "content": file + "\n"}
		p["tool_response"] = map[string]any{"type": "create", "filePath": abs, "content": file + "\n",
			"structuredPatch": []any{}, "originalFile": nil, "userModified": false}
		p["tool_use_id"] = "toolu_" + strings.NewReplacer("/", "_", ".", "_").Replace(file)
		p["duration_ms"] = 40
	case "Stop":
		p["stop_hook_active"] = false
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestHookBurst: 50 PostToolUse hooks of five sessions arrive at once,
// as a burst of parallel tool calls does, on a 2,000-file tree. Each
// exits 0 and prints nothing; the lock queue drains with no hook failure
// recorded; every call's file is in the checkpoint it recorded, named by
// it, in its session's turn; the journal chains and doctor is clean.
// Time is not judged here: make bench measures the burst on 100k files.
func TestHookBurst(t *testing.T) {
	const sessions, calls = 5, 50
	env := gitEnv(t)
	dir := filepath.Join(t.TempDir(), "tree")
	for i := 0; i < 2000; i++ {
		writeFile(t, filepath.Join(dir, fmt.Sprintf("src/d%03d/f%04d.txt", i/20, i)), fmt.Sprintf("file %d\n", i), 0o644)
	}
	must(t, 0, dir, env, "git", "init", "-q", "-b", "main")
	must(t, 0, dir, env, "git", "add", ".")
	must(t, 0, dir, env, "git", "commit", "-q", "-m", "init")
	env = append(env, "CLAUDE_PROJECT_DIR="+dir)
	hook := func(payload []byte) result {
		cmd, stdout, stderr := command(dir, env, "git", "checkpoint", "hook", "claude")
		cmd.Stdin = strings.NewReader(string(payload))
		if err := cmd.Start(); err != nil {
			t.Error(err)
			return result{code: -1}
		}
		return finish(t, cmd, stdout, stderr)
	}
	session := func(k int) string { return fmt.Sprintf("5e55%04d-0000-4000-8000-%012d", k, k) }
	sessionIndex := map[string]int{}
	for k := 0; k < sessions; k++ {
		sessionIndex[session(k)] = k
	}
	for k := 0; k < sessions; k++ {
		if r := hook(claudePayload(t, dir, session(k), "UserPromptSubmit", "")); r.code != 0 || r.stdout != "" {
			t.Fatalf("turn start of session %d: %+v", k, r)
		}
	}

	// Each tool has written its file when its hook runs.
	files := make([]string, calls)
	for i := range files {
		files[i] = fmt.Sprintf("agent/s%d/w%02d.txt", i%sessions, i)
		writeFile(t, filepath.Join(dir, files[i]), files[i]+"\n", 0o644)
	}
	results := make([]result, calls)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			payload := claudePayload(t, dir, session(i%sessions), "PostToolUse", files[i])
			<-start
			results[i] = hook(payload)
		}()
	}
	close(start)
	wg.Wait()
	for i, r := range results {
		if r.code != 0 || r.stdout != "" || r.stderr != "" {
			t.Errorf("hook %d (%s): exit %d, stdout %q, stderr %q; want exit 0 and nothing printed", i, files[i], r.code, r.stdout, r.stderr)
		}
	}
	stateDir := strings.TrimSpace(must(t, 0, dir, env, "git", "rev-parse", "--path-format=absolute", "--git-path", "checkpoints").stdout)
	if log, err := os.ReadFile(filepath.Join(stateDir, "hook.log")); err == nil {
		t.Errorf("hook.log after the burst:\n%s", log)
	}
	if h := agents.ReadHealth(stateDir); h.Failures != 0 {
		t.Errorf("hook health after the burst: %+v", h)
	}

	// One tool record per call, naming its file, in its session's turn,
	// whose checkpoint holds the file as written.
	j := wholeJournal(t, stateDir)
	turnOf := map[string]string{}
	named := map[string]int{}
	for _, ev := range j.All() {
		r := ev.Checkpoint
		switch {
		case r == nil:
		case r.Reason == store.ReasonTurnStart:
			turnOf[r.Session] = r.Turn
		case r.Reason == store.ReasonTool:
			if len(r.Paths) != 1 || r.Turn == "" || r.Turn != turnOf[r.Session] {
				t.Errorf("tool record %s: paths %v, turn %q of session %s (its turn is %q)", r.ID, r.Paths, r.Turn, r.Session, turnOf[r.Session])
				continue
			}
			named[r.Paths[0]]++
			if want := fmt.Sprintf("agent/s%d/", sessionIndex[r.Session]); !strings.HasPrefix(r.Paths[0], want) {
				t.Errorf("tool record %s of session %s names %s", r.ID, r.Session, r.Paths[0])
			}
			got := must(t, 0, dir, env, "git", "cat-file", "blob", r.Tree+":"+r.Paths[0]).stdout
			if got != r.Paths[0]+"\n" {
				t.Errorf("checkpoint %s holds %s as %q", r.ID, r.Paths[0], got)
			}
		}
	}
	var missing []string
	for _, f := range files {
		if named[f] != 1 {
			missing = append(missing, fmt.Sprintf("%s (%d records)", f, named[f]))
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 || len(named) != calls {
		t.Errorf("tool records: want one per call; wrong for %v (%d files named)", missing, len(named))
	}

	// Nothing was left uncaptured, the turns end, and doctor is clean.
	var full struct{ Reused bool }
	if err := json.Unmarshal([]byte(must(t, 0, dir, env, "git", "checkpoint", "--json").stdout), &full); err != nil || !full.Reused {
		t.Errorf("a full capture after the burst made a new checkpoint (%v): a change was not captured", err)
	}
	for k := 0; k < sessions; k++ {
		if r := hook(claudePayload(t, dir, session(k), "Stop", "")); r.code != 0 || r.stdout != "" {
			t.Errorf("turn end of session %d: %+v", k, r)
		}
	}
	must(t, 0, dir, env, "git", "checkpoint", "doctor")
}

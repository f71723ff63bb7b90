package checkpoint_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-checkpoint/git-checkpoint/internal/mcp"
)

// mcpClient is an MCP client session with `git checkpoint mcp` running as
// a real process in dir, started through git's own dispatch as an agent
// starts it.
type mcpClient struct {
	t  *testing.T
	cs *sdk.ClientSession
}

func startMCP(t *testing.T, dir string, env []string) *mcpClient {
	t.Helper()
	cmd := exec.Command("git", "checkpoint", "mcp")
	cmd.Dir, cmd.Env = dir, env
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connecting to git checkpoint mcp: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return &mcpClient{t, cs}
}

// call calls a tool and returns its result's text, and whether it is a
// tool error.
func (c *mcpClient) call(name string, args map[string]any) (string, bool) {
	c.t.Helper()
	res, err := c.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		c.t.Fatalf("%s: %v", name, err)
	}
	if len(res.Content) != 1 {
		c.t.Fatalf("%s: %d content blocks, want 1", name, len(res.Content))
	}
	text, ok := res.Content[0].(*sdk.TextContent)
	if !ok {
		c.t.Fatalf("%s: content %T, want text", name, res.Content[0])
	}
	if !res.IsError {
		// The structured content is the same document as the text.
		var a, b any
		s, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(s, &a)
		json.Unmarshal([]byte(text.Text), &b)
		if !reflect.DeepEqual(a, b) {
			c.t.Errorf("%s: structured content %s differs from its text %s", name, s, text.Text)
		}
	}
	return text.Text, res.IsError
}

// ok calls a tool that must succeed and decodes its document.
func (c *mcpClient) ok(name string, args map[string]any) map[string]any {
	c.t.Helper()
	text, isErr := c.call(name, args)
	if isErr {
		c.t.Fatalf("%s %v: tool error %s", name, args, text)
	}
	return decode(c.t, text)
}

// fails calls a tool that must fail with code and returns its error.
func (c *mcpClient) fails(code, name string, args map[string]any) map[string]any {
	c.t.Helper()
	text, isErr := c.call(name, args)
	doc := decode(c.t, text)
	e, _ := doc["error"].(map[string]any)
	if !isErr || e == nil || e["code"] != code {
		c.t.Fatalf("%s %v: got %s, want a tool error %s", name, args, text, code)
	}
	return e
}

func decode(t *testing.T, text string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(text), &m); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, text)
	}
	return m
}

// sameJSON fails unless the tool's document equals the command line's.
func sameJSON(t *testing.T, what string, tool map[string]any, cliOut string) {
	t.Helper()
	if want := decode(t, cliOut); !reflect.DeepEqual(tool, want) {
		got, _ := json.MarshalIndent(tool, "", "  ")
		t.Errorf("%s: the tool says\n%s\nthe command line says\n%s", what, got, cliOut)
	}
}

// TestMCPServer drives `git checkpoint mcp` over stdio with the SDK's
// client: its tools and their schemas, documents equal to the command
// line's --json, the capped diff, and a rewind that is refused until the
// person sets checkpoint.mcpRewind (read at each call, by the same
// server), refused when stale, then applied exactly, journaled as the
// model's, and undone by the command it names.
func TestMCPServer(t *testing.T) {
	env := gitEnv(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.txt"), "a\n", 0o644)
	writeFile(t, filepath.Join(dir, "b.txt"), "b\n", 0o644)
	must(t, 0, dir, env, "git", "init", "-q", "-b", "main")
	must(t, 0, dir, env, "git", "checkpoint", "-m", "start")
	start := manifest(t, dir)
	writeFile(t, filepath.Join(dir, "a.txt"), "agent's a\n", 0o644)
	writeFile(t, filepath.Join(dir, "c.txt"), "agent's c\n", 0o644)
	c := startMCP(t, dir, env)

	tools, err := c.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		schema, _ := json.Marshal(tl.InputSchema)
		if !strings.Contains(string(schema), `"properties"`) || !strings.HasSuffix(string(schema), `"type":"object"}`) || strings.Contains(string(schema), `"null"`) {
			t.Errorf("%s: input schema %s", tl.Name, schema)
		}
	}
	slices.Sort(names)
	if want := []string{"checkpoint", "diff", "list_checkpoints", "log_turns", "rewind_apply", "rewind_plan"}; !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}

	// phase: the documents are the command line's
	rec := c.ok("checkpoint", map[string]any{"label": "from the model"})
	if rec["id"] != "k2" || rec["label"] != "from the model" || rec["reason"] != "manual" {
		t.Errorf("checkpoint: %v", rec)
	}
	sameJSON(t, "list_checkpoints", c.ok("list_checkpoints", nil), must(t, 0, dir, env, "git", "checkpoint", "list", "--json").stdout)
	sameJSON(t, "list_checkpoints limit 1", c.ok("list_checkpoints", map[string]any{"limit": 1}),
		must(t, 0, dir, env, "git", "checkpoint", "list", "-n", "1", "--json").stdout)
	sameJSON(t, "log_turns", c.ok("log_turns", nil), must(t, 0, dir, env, "git", "checkpoint", "log", "--json").stdout)
	if got := c.ok("list_checkpoints", map[string]any{"session": "nobody"}); !reflect.DeepEqual(got, map[string]any{"checkpoints": []any{}}) {
		t.Errorf("list_checkpoints of an unknown session: %v", got)
	}

	// phase: diff, whole and of one path, against the tree and between
	// checkpoints
	d := c.ok("diff", map[string]any{"from": "k1"})
	if diff := d["diff"].(string); !strings.Contains(diff, "+agent's a\n") || !strings.Contains(diff, "+agent's c\n") || d["truncated"] != false {
		t.Errorf("diff from k1: %v", d)
	}
	d = c.ok("diff", map[string]any{"from": "k1", "to": "k2", "paths": []string{"c.txt"}})
	if diff := d["diff"].(string); strings.Contains(diff, "a.txt") || !strings.Contains(diff, "+agent's c\n") || d["to"] != "k2" {
		t.Errorf("diff k1 k2 -- c.txt: %v", d)
	}
	c.fails("invalid.path", "diff", map[string]any{"from": "k1", "paths": []string{"../elsewhere"}})
	c.fails("not_found.checkpoint", "diff", map[string]any{"from": "k9"})

	// phase: a big diff is cut, at a line, with a marker
	writeFile(t, filepath.Join(dir, "big.txt"), strings.Repeat("a line of the big file\n", 8000), 0o644)
	d = c.ok("diff", map[string]any{"from": "k1", "paths": []string{"big.txt"}})
	diff := d["diff"].(string)
	if d["truncated"] != true || len(diff) > mcp.MaxDiff+100 || int(d["bytes"].(float64)) <= mcp.MaxDiff ||
		!strings.Contains(diff, "+a line of the big file\n[diff cut: ") {
		t.Errorf("big diff: truncated %v, %d bytes of %v, ends %q", d["truncated"], len(diff), d["bytes"], diff[max(0, len(diff)-120):])
	}
	os.Remove(filepath.Join(dir, "big.txt"))

	// phase: the plan is the command line's plan
	plan := c.ok("rewind_plan", map[string]any{"id": "k1"})
	dry := must(t, 0, dir, env, "git", "rewind", "k1", "--dry-run", "--json").stdout
	if plan["plan"] != decode(t, dry)["plan"] || plan["apply_enabled"] != false || plan["dry_run"] != true {
		t.Fatalf("rewind_plan k1: %v\nthe dry run: %s", plan, dry)
	}
	id := plan["plan"].(string)

	// phase: refused until the person enables it
	e := c.fails("unsupported.mcp_rewind_off", "rewind_apply", map[string]any{"plan": id})
	if hints := e["hints"].([]any); !strings.Contains(hints[1].(string), "git config --global checkpoint.mcpRewind true") {
		t.Errorf("hints: %v", hints)
	}
	must(t, 0, dir, env, "git", "config", "--global", "checkpoint.mcpRewind", "true")
	c.fails("not_found.plan", "rewind_apply", map[string]any{"plan": "p1-0123456789abcdef"})
	c.fails("invalid.plan", "rewind_apply", map[string]any{"plan": "k1"})
	if plan := c.ok("rewind_plan", map[string]any{"id": "k1"}); plan["apply_enabled"] != true || plan["plan"] != id {
		t.Errorf("rewind_plan after the config: %v", plan)
	}

	// phase: a tree that changed since the plan is refused
	writeFile(t, filepath.Join(dir, "b.txt"), "b, changed since the plan\n", 0o644)
	changed := manifest(t, dir)
	c.fails("conflict.rewind_stale", "rewind_apply", map[string]any{"plan": id})
	sameTree(t, "after the stale plan", changed, manifest(t, dir))

	// phase: the new plan applies, exactly
	id = c.ok("rewind_plan", map[string]any{"id": "k1"})["plan"].(string)
	done := c.ok("rewind_apply", map[string]any{"plan": id})
	if done["dry_run"] != false || done["plan"] != id || done["exact"] != true || done["undo"] != mcp.UndoCommand || done["safety"] == "" {
		t.Errorf("rewind_apply: %v", done)
	}
	sameTree(t, "after rewind_apply", start, manifest(t, dir))
	c.fails("not_found.plan", "rewind_apply", map[string]any{"plan": id})
	journal, err := os.ReadFile(filepath.Join(dir, ".git", "checkpoints", "journal.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(journal), `"by":"model"`); n != 2 {
		t.Errorf("%d journal lines say the model applied a rewind, want 2 (started, ended):\n%s", n, journal)
	}

	// phase: the undo it names puts the tree back
	must(t, 0, dir, env, "git", "rewind", "--undo", "--yes")
	sameTree(t, "after the undo", changed, manifest(t, dir))
}

// TestMCPOutsideEdits: through MCP a person's edits are never overwritten.
// A plan over one shows the refusal and cannot be applied; planned with
// outside "keep" it leaves the edit and applies; "overwrite" is refused.
func TestMCPOutsideEdits(t *testing.T) {
	env := gitEnv(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.txt"), "a\n", 0o644)
	must(t, 0, dir, env, "git", "init", "-q", "-b", "main")
	must(t, 0, dir, env, "git", "config", "--global", "checkpoint.mcpRewind", "true")
	// A run is a turn: what it writes is the agent's, and what changes
	// after it is a person's.
	must(t, 0, dir, env, "git", "checkpoint", "run", "--", "sh", "-c", "echo agent > agent.txt")
	writeFile(t, filepath.Join(dir, "a.txt"), "the person's a\n", 0o644)
	c := startMCP(t, dir, env)

	plan := c.ok("rewind_plan", map[string]any{"id": "k1"})
	refused, _ := plan["refused"].(map[string]any)
	if refused == nil || refused["code"] != "conflict.outside_edits" {
		t.Fatalf("rewind_plan over a person's edit: %v", plan)
	}
	before := manifest(t, dir)
	e := c.fails("conflict.outside_edits", "rewind_apply", map[string]any{"plan": plan["plan"]})
	if hints := e["hints"].([]any); !strings.Contains(hints[0].(string), `outside "keep"`) {
		t.Errorf("hints: %v", hints)
	}
	sameTree(t, "after the refusal", before, manifest(t, dir))
	if text, isErr := c.call("rewind_plan", map[string]any{"id": "k1", "outside": "overwrite"}); !isErr || !strings.Contains(text, "enum") {
		t.Errorf("rewind_plan with outside overwrite: %s", text)
	}

	plan = c.ok("rewind_plan", map[string]any{"id": "k1", "outside": "keep"})
	done := c.ok("rewind_apply", map[string]any{"plan": plan["plan"]})
	if left := done["left"].([]any); len(left) != 1 || left[0].(map[string]any)["path"] != "a.txt" {
		t.Errorf("left: %v", done["left"])
	}
	if _, err := os.Stat(filepath.Join(dir, "agent.txt")); !os.IsNotExist(err) {
		t.Errorf("agent.txt is still there: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "the person's a\n" {
		t.Errorf("a.txt is %q, the person's edit is gone", b)
	}
}

// TestMCPDiffFetched: the diff tool takes a fetched store's ids
// ("<store>:k1"), as rewind_plan and the command line's diff do.
func TestMCPDiffFetched(t *testing.T) {
	env := gitEnv(t)
	base := t.TempDir()
	bare := filepath.Join(base, "remote.git")
	// HEAD main, the branch newSideAt pushes, so that the clone has files.
	must(t, 0, base, env, "git", "init", "-q", "--bare", "-b", "main", bare)
	a := newSideAt(t, env, base, bare)
	writeFile(t, filepath.Join(a.dir, "a.txt"), "from the other machine\n", 0o644)
	a.git(t, 0, "checkpoint", "-m", "there")
	a.git(t, 0, "checkpoint", "push")
	b := newSide(t, "file://"+bare, "b")
	b.git(t, 0, "checkpoint", "fetch")
	id := a.storeID(t)[:8] + ":k1"
	c := startMCP(t, b.dir, b.env)
	d := c.ok("diff", map[string]any{"from": id})
	if diff := d["diff"].(string); !strings.Contains(diff, "-from the other machine\n+a\n") || d["from"] != id {
		t.Errorf("diff from %s to the tree here: %v", id, d)
	}
	c.fails("not_found.checkpoint", "diff", map[string]any{"from": a.storeID(t)[:8] + ":k9"})
}

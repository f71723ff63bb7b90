package e2e

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/agenttest"
)

// mcpClient is an agent as the MCP client of git-checkpoint's server.
type mcpClient struct {
	agent  string
	prefix string // before a tool's name: Claude Code's mcp__git-checkpoint__
	server func(testing.TB, agenttest.Script) *agenttest.Server
	run    func(testing.TB, agenttest.Run) *agenttest.Result
	write  func(path, content string) agenttest.Call
}

var (
	claudeMCPClient = mcpClient{"claude", "mcp__git-checkpoint__", agenttest.NewClaudeServer, agenttest.RunClaude, agenttest.ClaudeWrite}
	geminiMCPClient = mcpClient{"gemini", "mcp_git-checkpoint_", agenttest.NewGeminiServer, agenttest.RunGemini, agenttest.GeminiWriteFile}
)

// call is a call of a tool of the server as the agent names it.
func (c mcpClient) call(tool string, args map[string]any) agenttest.Call {
	return agenttest.Call{Name: c.prefix + tool, Args: args}
}

// mcpStory: a real agent (Claude Code 2.1, Gemini CLI 0.61) as the MCP
// client of `git checkpoint mcp`, registered by `git checkpoint install
// AGENT --mcp` beside the hooks. The model lists the checkpoints, plans a
// rewind to the one before its own edit and applies the plan: refused
// while checkpoint.mcpRewind is unset, applied once the person set it;
// each tool's result (an error one too) reaches the model in its next
// request, and the rewind is journaled as the model's.
func mcpStory(t *testing.T, tools string, c mcpClient) {
	f := newFixture(t, tools)
	f.exits(0, "git", "checkpoint", "install", c.agent)
	f.exits(0, "git", "checkpoint", "install", c.agent, "--mcp")
	f.exits(0, "git", "checkpoint", "-m", "before the agent")
	start := f.manifest()

	// turn 1: the agent's edit, which the next sessions take back
	srv := c.server(t, agenttest.Script{Steps: []agenttest.Step{
		agenttest.Do(c.write(f.path("broken.txt"), "the agent's mistake\n")),
		agenttest.Say("EDIT-DONE"),
	}})
	run := agenttest.Run{Dir: f.dir, Home: f.home, URL: srv.URL, Env: f.env, Prompt: "EDIT: write broken.txt"}
	f.ran(c.run(t, run), srv)
	if got := f.read("broken.txt"); got != "the agent's mistake\n" {
		t.Fatalf("broken.txt after the edit: %q", got)
	}
	// The plan the model will be given is the command line's plan of the
	// same rewind: the same tree, target and choices make the same id.
	var dry struct{ Plan string }
	f.exitsJSON(0, &dry, "git", "rewind", "k1", "--dry-run", "--json")

	// turn 2: list, plan, apply: refused, since the person has not said yes
	srv = c.server(t, agenttest.Script{Steps: []agenttest.Step{
		agenttest.Do(c.call("list_checkpoints", map[string]any{"limit": 5})),
		agenttest.Do(c.call("rewind_plan", map[string]any{"id": "k1"})),
		agenttest.Do(c.call("rewind_apply", map[string]any{"plan": dry.Plan})),
		agenttest.Say("REFUSED-SEEN"),
	}})
	run.URL, run.Prompt = srv.URL, "UNDO: take back broken.txt"
	f.ran(c.run(t, run), srv)
	requests := stepBodies(t, srv, 4)
	// Claude Code lists MCP tools among its deferred ones, by name;
	// Gemini CLI declares them.
	if !strings.Contains(requests[0], c.prefix+"rewind_apply") {
		t.Fatalf("Claude Code did not offer the server's tools to the model:\n%s", srv.Dump())
	}
	// Each request holds the result of the call before it.
	// Claude Code hands on the structured content, as compact JSON in a
	// JSON string; Gemini CLI the text.
	resultsArrive(t, requests, [][]string{
		{`checkpoints\\*": ?\[`, `before the agent`},
		{dry.Plan, `apply_enabled\\*": ?false`, `broken.txt`},
		{`unsupported.mcp_rewind_off`, `git config checkpoint.mcpRewind true`, `git rewind ID --plan ` + dry.Plan},
	})
	if got := f.read("broken.txt"); got != "the agent's mistake\n" {
		t.Errorf("broken.txt after the refused apply: %q", got)
	}

	// turn 3: the person lets the model apply plans; the same plan applies
	f.exits(0, "git", "config", "checkpoint.mcpRewind", "true")
	srv = c.server(t, agenttest.Script{Steps: []agenttest.Step{
		agenttest.Do(c.call("rewind_plan", map[string]any{"id": "k1"})),
		agenttest.Do(c.call("rewind_apply", map[string]any{"plan": dry.Plan})),
		agenttest.Say("APPLIED"),
	}})
	run.URL, run.Prompt = srv.URL, "UNDO-AGAIN: take back broken.txt"
	f.ran(c.run(t, run), srv)
	requests = stepBodies(t, srv, 3)
	resultsArrive(t, requests, [][]string{
		{dry.Plan, `apply_enabled\\*": ?true`},
		{`dry_run\\*": ?false`, `exact\\*": ?true`, `undo\\*": ?\\*"git rewind --undo`},
	})
	if _, err := os.Stat(f.path("broken.txt")); !os.IsNotExist(err) {
		t.Errorf("broken.txt after rewind_apply: %v", err)
	}
	f.sameTree("after rewind_apply", start)
	journal, err := os.ReadFile(f.stateDir() + "/journal.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(journal), `"by":"model"`); n != 2 {
		t.Errorf("%d journal lines say the model applied the rewind, want 2", n)
	}

	// the person takes it back with the command the result named
	f.exits(0, "git", "rewind", "--undo", "--yes")
	if got := f.read("broken.txt"); got != "the agent's mistake\n" {
		t.Errorf("broken.txt after the undo: %q", got)
	}
	f.exits(0, "git", "checkpoint", "uninstall", c.agent, "--mcp")
}

// resultsArrive checks that each request after the first holds the result
// of the tool call before it: want[i] are patterns request i+1 matches.
func resultsArrive(t *testing.T, requests []string, want [][]string) {
	t.Helper()
	for i, patterns := range want {
		for _, p := range patterns {
			if !regexp.MustCompile(p).MatchString(requests[i+1]) {
				t.Errorf("request %d lacks the result of the call before it (%s):\n%s", i+1, p, tail(requests[i+1], 3000))
			}
		}
	}
}

// stepBodies returns the bodies of the requests that the n scripted steps
// answered, in step order, failing unless each step was asked for.
func stepBodies(t *testing.T, srv *agenttest.Server, n int) []string {
	t.Helper()
	bodies := make([]string, n)
	for _, r := range srv.Steps() {
		if r.Step >= 0 && r.Step < n {
			bodies[r.Step] = string(r.Body)
		}
	}
	for i, b := range bodies {
		if b == "" {
			t.Fatalf("no request for step %d:\n%s", i, srv.Dump())
		}
	}
	return bodies
}

// tail is the end of s, at most n bytes of it.
func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

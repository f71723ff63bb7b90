package e2e

import (
	"os"
	"path/filepath"
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
	// config is the run's Run.Config, read after the installs: Codex's
	// whole config.toml, which the harness writes again for each run.
	config func(f *fixture) string
	// discover is the call that makes the server's tools callable, when
	// the agent defers them (Codex: tool_search); its request is the
	// first, and offers matches the request that offers the tools.
	discover *agenttest.Call
	offers   string
	// seed are files (path: content) written before the installs: the
	// agent's settings as it writes them itself.
	seed map[string]string
	// trust is what the person does after the installs, before the agent
	// starts a server of the project's files (Kimi Code: trust the folder).
	trust func(*testing.T, *fixture)
}

var (
	// Claude Code lists MCP tools among its deferred ones, by name;
	// Gemini CLI declares them.
	claudeMCPClient = mcpClient{agent: "claude", prefix: "mcp__git-checkpoint__", server: agenttest.NewClaudeServer,
		run: agenttest.RunClaude, write: agenttest.ClaudeWrite, offers: `mcp__git-checkpoint__rewind_apply`}
	geminiMCPClient = mcpClient{agent: "gemini", prefix: "mcp_git-checkpoint_", server: agenttest.NewGeminiServer,
		run: agenttest.RunGemini, write: agenttest.GeminiWriteFile, offers: `mcp_git-checkpoint_rewind_apply`}
	// Codex defers every MCP tool: the model finds them with tool_search,
	// whose output declares the server's namespace and its tools.
	codexMCPClient = mcpClient{agent: "codex", prefix: "mcp__git-checkpoint__", server: agenttest.NewCodexServer,
		run: agenttest.RunCodex, write: codexAddFile, config: codexConfigFile,
		discover: &codexSearch, offers: `"tool_search_output".*"namespace","name":"mcp__git_checkpoint".*"name":"rewind_apply"`}
	codexSearch   = agenttest.CodexToolSearch("checkpoint rewind")
	qwenMCPClient = mcpClient{agent: "qwen", prefix: "mcp__git-checkpoint__", server: agenttest.NewChatServer,
		run: agenttest.RunQwen, write: agenttest.QwenWriteFile, offers: `mcp__git-checkpoint__rewind_apply`,
		// Qwen Code adds "$version" to a settings file that lacks it,
		// which no rewind writes back (it holds the hooks).
		seed: map[string]string{".qwen/settings.json": "{\n  \"$version\": 4\n}\n"}}
	// Kimi Code starts the servers of .kimi-code/mcp.json only in a
	// folder the person trusted.
	kimiMCPClient = mcpClient{agent: "kimi", prefix: "mcp__git-checkpoint__", server: agenttest.NewChatServer,
		run: agenttest.RunKimi, write: agenttest.KimiWrite, offers: `mcp__git-checkpoint__rewind_apply`,
		trust: kimiTrustFolder}
)

// steps are the steps of a turn calling the server's tools: after the
// discovery, when the agent needs one.
func (c mcpClient) steps(steps ...agenttest.Step) []agenttest.Step {
	if c.discover == nil {
		return steps
	}
	return append([]agenttest.Step{agenttest.Do(*c.discover)}, steps...)
}

// requests are the bodies of the requests answering a turn's n steps,
// from the first after the discovery.
func (c mcpClient) requests(t *testing.T, srv *agenttest.Server, n int) []string {
	t.Helper()
	if c.discover == nil {
		return stepBodies(t, srv, n)
	}
	return stepBodies(t, srv, n+1)[1:]
}

// codexAddFile is an apply_patch adding the file at path, of the tree's top.
func codexAddFile(path, content string) agenttest.Call {
	body := "+" + strings.ReplaceAll(strings.TrimSuffix(content, "\n"), "\n", "\n+") + "\n"
	return agenttest.CodexPatch("*** Begin Patch\n*** Add File: " + filepath.Base(path) + "\n" + body + "*** End Patch\n")
}

// codexConfigFile is $CODEX_HOME/config.toml as install left it: the
// notify of the hooks' install and the table of install --mcp.
func codexConfigFile(f *fixture) string {
	b, err := os.ReadFile(filepath.Join(f.home, ".codex", "config.toml"))
	if err != nil {
		f.t.Fatal(err)
	}
	return string(b)
}

// call is a call of a tool of the server as the agent names it.
func (c mcpClient) call(tool string, args map[string]any) agenttest.Call {
	return agenttest.Call{Name: c.prefix + tool, Args: args}
}

// mcpStory: a real agent (Claude Code 2.1, Gemini CLI 0.61, Codex 0.169,
// Qwen Code 0.24, Kimi Code 2.1) as the MCP
// client of `git checkpoint mcp`, registered by `git checkpoint install
// AGENT --mcp` beside the hooks. The model lists the checkpoints, plans a
// rewind to the one before its own edit and applies the plan: refused
// while checkpoint.mcpRewind is unset, applied once the person set it;
// each tool's result (an error one too) reaches the model in its next
// request, and the rewind is journaled as the model's.
func mcpStory(t *testing.T, tools string, c mcpClient) {
	f := newFixture(t, tools)
	for name, content := range c.seed {
		if err := os.MkdirAll(filepath.Dir(f.path(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		f.write(name, content)
	}
	f.exits(0, "git", "checkpoint", "install", c.agent)
	f.exits(0, "git", "checkpoint", "install", c.agent, "--mcp")
	if c.trust != nil {
		c.trust(t, f)
	}
	f.exits(0, "git", "checkpoint", "-m", "before the agent")
	start := f.manifest()

	// turn 1: the agent's edit, which the next sessions take back
	srv := c.server(t, agenttest.Script{Steps: []agenttest.Step{
		agenttest.Do(c.write(f.path("broken.txt"), "the agent's mistake\n")),
		agenttest.Say("EDIT-DONE"),
	}})
	run := agenttest.Run{Dir: f.dir, Home: f.home, URL: srv.URL, Env: f.env, Prompt: "EDIT: write broken.txt"}
	if c.config != nil {
		run.Config = c.config(f)
	}
	f.ran(c.run(t, run), srv)
	if got := f.read("broken.txt"); got != "the agent's mistake\n" {
		t.Fatalf("broken.txt after the edit: %q", got)
	}
	// The plan the model will be given is the command line's plan of the
	// same rewind: the same tree, target and choices make the same id.
	var dry struct{ Plan string }
	f.exitsJSON(0, &dry, "git", "rewind", "k1", "--dry-run", "--json")

	// turn 2: list, plan, apply: refused, since the person has not said yes
	srv = c.server(t, agenttest.Script{Steps: c.steps(
		agenttest.Do(c.call("list_checkpoints", map[string]any{"limit": 5})),
		agenttest.Do(c.call("rewind_plan", map[string]any{"id": "k1"})),
		agenttest.Do(c.call("rewind_apply", map[string]any{"plan": dry.Plan})),
		agenttest.Say("REFUSED-SEEN"),
	)})
	run.URL, run.Prompt = srv.URL, "UNDO: take back broken.txt"
	f.ran(c.run(t, run), srv)
	requests := c.requests(t, srv, 4)
	if !regexp.MustCompile(c.offers).MatchString(requests[0]) {
		t.Fatalf("%s did not offer the server's tools to the model:\n%s", c.agent, srv.Dump())
	}
	// Each request holds the result of the call before it.
	// Claude Code hands on the structured content, as compact JSON in a
	// JSON string; Gemini CLI the text; Codex the text after its own
	// line of wall time.
	resultsArrive(t, requests, [][]string{
		{`checkpoints\\*": ?\[`, `before the agent`},
		{dry.Plan, `apply_enabled\\*": ?false`, `broken.txt`},
		{`unsupported.mcp_rewind_off`, `git config --global checkpoint.mcpRewind true`, `git rewind ID --plan ` + dry.Plan},
	})
	if got := f.read("broken.txt"); got != "the agent's mistake\n" {
		t.Errorf("broken.txt after the refused apply: %q", got)
	}

	// turn 3: the person lets the model apply plans; the same plan applies
	f.exits(0, "git", "config", "--global", "checkpoint.mcpRewind", "true")
	srv = c.server(t, agenttest.Script{Steps: c.steps(
		agenttest.Do(c.call("rewind_plan", map[string]any{"id": "k1"})),
		agenttest.Do(c.call("rewind_apply", map[string]any{"plan": dry.Plan})),
		agenttest.Say("APPLIED"),
	)})
	run.URL, run.Prompt = srv.URL, "UNDO-AGAIN: take back broken.txt"
	f.ran(c.run(t, run), srv)
	requests = c.requests(t, srv, 3)
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
	// and the person sees it: status says the model may apply plans, log
	// marks the rewind as the model's
	if res := f.exits(0, "git", "checkpoint", "status"); !strings.Contains(res.stdout, "mcp rewinds  the model may apply") ||
		!strings.Contains(res.stdout, "mcp          "+c.agent+", ") {
		t.Errorf("git checkpoint status does not show the server and the setting:\n%s", res.stdout)
	}
	if res := f.exits(0, "git", "checkpoint", "log"); !strings.Contains(res.stdout, "rewind by model") {
		t.Errorf("git checkpoint log does not mark the model's rewind:\n%s", res.stdout)
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

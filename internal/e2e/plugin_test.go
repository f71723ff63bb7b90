package e2e

import (
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/agenttest"
)

// pluginAgent is an agent that takes git-checkpoint's hooks and MCP
// server from a package in its own plugin format, in the repository's
// plugins/ directory, instead of from the settings `git checkpoint
// install` writes.
type pluginAgent struct {
	mcpClient        // the agent, its model server, its file-writing tool and its MCP tools' names
	dir       string // the package, under plugins/
	// add adds the package at path to the agent in f.home, as its
	// person would, and returns the arguments each run needs.
	add     func(f *fixture, path string) []string
	shell   func(command string) agenttest.Call
	session func(*testing.T, *agenttest.Result) string
	// turnOne is the journal of the story's one turn (see boundaries).
	turnOne []string
}

// pluginStory: with nothing installed in the tree, the agent takes the
// hooks and the MCP server from the package. A turn creates a file, runs
// a shell edit and lists the checkpoints through the MCP server: the
// hooks checkpoint the turn's start and each tool call, the list reaches
// the model, and `git rewind t1` gives back the tree as it was before.
func pluginStory(t *testing.T, tools string, p pluginAgent) {
	f := newFixture(t, tools)
	path, err := filepath.Abs(filepath.Join("..", "..", "plugins", p.dir))
	if err != nil {
		t.Fatal(err)
	}
	args := p.add(f, path)
	before := f.manifest()
	if names := slices.Sorted(maps.Keys(before)); !slices.Equal(names, []string{"gone.txt", "log.txt", "person.txt"}) {
		t.Fatalf("adding the package wrote into the tree: %q", names)
	}

	srv := p.server(t, agenttest.Script{Steps: []agenttest.Step{
		agenttest.Do(p.write(f.path("written.txt"), "written by the agent\n")),
		agenttest.Do(p.shell(shellEdit)),
		agenttest.Do(p.call("list_checkpoints", map[string]any{"limit": 5})),
		agenttest.Say("TURN-ONE-DONE"),
	}})
	run := agenttest.Run{Dir: f.dir, Home: f.home, URL: srv.URL, Env: f.env, Args: args, Prompt: "TURN-ONE: edit the files"}
	res := p.run(t, run)
	f.ran(res, srv)
	f.turnOneDone()
	sameLines(t, "journal of turn 1", boundaries(t, f.journal(), p.session(t, res), p.agent), p.turnOne)

	// The server's tools are offered, and the list of the checkpoints the
	// hooks took reaches the model.
	requests := stepBodies(t, srv, 4)
	if !regexp.MustCompile(p.offers).MatchString(requests[0]) {
		t.Errorf("%s did not offer the MCP server's tools to the model:\n%s", p.agent, shorten(requests[0]))
	}
	resultsArrive(t, requests, [][]string{nil, nil, {`checkpoints\\*": ?\[`, `turn_start`}})

	f.exits(0, "git", "rewind", "t1", "--yes")
	f.sameTree("after git rewind t1", before)
}

// claudePlugin: Claude Code 2.1 with plugins/claude-code, added as its
// person adds a plugin: the repository as a marketplace, then `claude
// plugin install`; `claude plugin validate` accepts both first. (`claude
// --plugin-dir plugins/claude-code` loads the same for one session.)
// Claude Code names a plugin's MCP server after the plugin too: its tools
// are mcp__plugin_git-checkpoint_git-checkpoint__*.
var claudePlugin = pluginAgent{
	mcpClient: servedAs(claudeMCPClient, "mcp__plugin_git-checkpoint_git-checkpoint__"), dir: "claude-code",
	add: func(f *fixture, path string) []string {
		run := agenttest.Run{Dir: f.dir, Home: f.home, Env: f.env}
		top := filepath.Dir(filepath.Dir(path))
		for _, args := range [][]string{
			{"plugin", "validate", top}, // the marketplace
			{"plugin", "validate", path},
			{"plugin", "marketplace", "add", top},
			{"plugin", "install", "git-checkpoint@git-checkpoint"},
		} {
			if res := agenttest.ClaudeCommand(f.t, run, args...); res.Err != nil {
				f.t.Fatalf("claude %v: %s", args, res)
			}
		}
		return nil
	},
	shell: agenttest.ClaudeBash, session: claudeSession,
	turnOne: []string{
		"turn_start t1",
		"tool t1 Write written.txt",
		"tool t1 Bash gone.txt,log.txt,new.txt",
		"tool t1 mcp__plugin_git-checkpoint_git-checkpoint__list_checkpoints (reused)",
		"turn_end t1 (reused)",
	},
}

// geminiExtension: Gemini CLI 0.61 with plugins/gemini-cli, linked with
// `gemini extensions link`.
var geminiExtension = pluginAgent{
	mcpClient: geminiMCPClient, dir: "gemini-cli",
	add: func(f *fixture, path string) []string {
		run := agenttest.Run{Dir: f.dir, Home: f.home, Env: f.env}
		if res := agenttest.GeminiCommand(f.t, run, "extensions", "link", path, "--consent"); res.Err != nil {
			f.t.Fatalf("gemini extensions link: %s", res)
		}
		return nil
	},
	shell: agenttest.GeminiShell, session: geminiSession,
	turnOne: []string{
		"turn_start t1",
		"tool t1 write_file written.txt",
		"tool t1 run_shell_command",
		"tool t1 mcp_git-checkpoint_list_checkpoints (reused)",
		"turn_end t1 (reused)",
	},
}

// servedAs is c with the server's tools named prefix+tool.
func servedAs(c mcpClient, prefix string) mcpClient {
	c.prefix, c.offers = prefix, regexp.QuoteMeta(prefix+"rewind_apply")
	return c
}

package agents

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestPluginsMatchInstall checks the packages in plugins/ (a Claude Code
// plugin, a Gemini CLI extension) against what install writes: their
// hooks are the hooks snippet of the agent, for exactly the events it
// hooks, and their MCP server is the one install --mcp registers. The
// agents' descriptions are the one source; a change there fails here
// until the packages follow.
func TestPluginsMatchInstall(t *testing.T) {
	for _, p := range []struct {
		agent, dir string
		mcp        string // the file registering the server, in dir
	}{
		{Claude, "claude-code", ".mcp.json"},
		{Gemini, "gemini-cli", "gemini-extension.json"},
	} {
		dir := filepath.Join("..", "..", "plugins", p.dir)
		snippets, err := Snippets(p.agent)
		if err != nil || len(snippets) != 1 {
			t.Fatalf("%s: snippets %v, %v", p.agent, snippets, err)
		}
		if got := readString(t, filepath.Join(dir, "hooks", "hooks.json")); got != snippets[0].Content {
			t.Errorf("plugins/%s/hooks/hooks.json differs from 'git checkpoint install %s --print':\n%s", p.dir, p.agent, snippets[0].Content)
		}
		mcp, err := MCPSnippet(p.agent)
		if err != nil {
			t.Fatal(err)
		}
		if got := servers(t, readString(t, filepath.Join(dir, p.mcp))); !sameJSON(got, servers(t, mcp.Content)) {
			t.Errorf("plugins/%s/%s registers the MCP servers %s, want those of 'git checkpoint install %s --mcp --print':\n%s",
				p.dir, p.mcp, got, p.agent, mcp.Content)
		}
	}
	// Claude Code finds the plugin through the repository's marketplace,
	// and each agent knows the package by the server's name.
	var market struct {
		Name    string
		Plugins []struct{ Name, Source string }
	}
	decodeFile(t, filepath.Join("..", "..", ".claude-plugin", "marketplace.json"), &market)
	var plugin, extension struct{ Name string }
	decodeFile(t, filepath.Join("..", "..", "plugins", "claude-code", ".claude-plugin", "plugin.json"), &plugin)
	decodeFile(t, filepath.Join("..", "..", "plugins", "gemini-cli", "gemini-extension.json"), &extension)
	if len(market.Plugins) != 1 || market.Plugins[0].Source != "./plugins/claude-code" ||
		market.Name != MCPServer || market.Plugins[0].Name != MCPServer || plugin.Name != MCPServer || extension.Name != MCPServer {
		t.Errorf("the marketplace %+v, the plugin %q and the extension %q are not all %s, at ./plugins/claude-code",
			market, plugin.Name, extension.Name, MCPServer)
	}
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func decodeFile(t *testing.T, path string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(readString(t, path)), v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// servers is the mcpServers object of a JSON document.
func servers(t *testing.T, doc string) []byte {
	t.Helper()
	var v struct{ MCPServers json.RawMessage }
	if err := json.Unmarshal([]byte(doc), &v); err != nil || v.MCPServers == nil {
		t.Fatalf("no mcpServers in %s: %v", doc, err)
	}
	return v.MCPServers
}

package e2e

import (
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/agenttest"
)

// TestAgents builds the binaries once and plays each agent's story, one
// agent at a time: the agents are heavy programs and the machine small.
func TestAgents(t *testing.T) {
	// The plugins' files are read by the agents, not by this test.
	tools := agenttest.BuildTools(t, func(rel string) bool {
		return strings.HasPrefix(rel, "plugins/") || strings.HasPrefix(rel, ".claude-plugin/")
	})
	t.Run("claude", func(t *testing.T) { claudeStory(t, tools) })
	t.Run("claude-foreground-subagent", func(t *testing.T) { claudeForegroundStory(t, tools) })
	t.Run("claude-failing-hooks", func(t *testing.T) { claudeFailingStory(t, tools) })
	t.Run("claude-turns", func(t *testing.T) { claudeTurnsStory(t, tools) })
	t.Run("claude-remote", func(t *testing.T) { claudeRemoteStory(t, tools) })
	t.Run("claude-mcp", func(t *testing.T) { mcpStory(t, tools, claudeMCPClient) })
	t.Run("claude-plugin", func(t *testing.T) { pluginStory(t, tools, claudePlugin) })
	t.Run("codex", func(t *testing.T) { codexStory(t, tools) })
	t.Run("codex-mcp", func(t *testing.T) { mcpStory(t, tools, codexMCPClient) })
	t.Run("gemini", func(t *testing.T) { geminiStory(t, tools) })
	t.Run("gemini-mcp", func(t *testing.T) { mcpStory(t, tools, geminiMCPClient) })
	t.Run("gemini-extension", func(t *testing.T) { pluginStory(t, tools, geminiExtension) })
	t.Run("copilot", func(t *testing.T) { copilotStory(t, tools) })
	t.Run("copilot-subagent", func(t *testing.T) { copilotSubagentStory(t, tools) })
	t.Run("opencode", func(t *testing.T) { opencodeStory(t, tools) })
	t.Run("qwen", func(t *testing.T) { qwenStory(t, tools) })
	t.Run("qwen-fork", func(t *testing.T) { qwenForkStory(t, tools) })
	t.Run("qwen-mcp", func(t *testing.T) { mcpStory(t, tools, qwenMCPClient) })
	t.Run("pi", func(t *testing.T) { piStory(t, tools) })
	t.Run("kimi", func(t *testing.T) { kimiStory(t, tools) })
	t.Run("kimi-mcp", func(t *testing.T) { mcpStory(t, tools, kimiMCPClient) })
	t.Run("cline", func(t *testing.T) { clineStory(t, tools) })
	t.Run("two-sessions", func(t *testing.T) { twoSessionsStory(t, tools) })
}

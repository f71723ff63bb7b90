// Package agenttest drives the real agent programs (Claude Code, Codex CLI,
// Gemini CLI, GitHub Copilot CLI, OpenCode, Qwen Code, Pi, Kimi Code and
// Cline, pinned in agents.txt) against fake model servers, so that tests
// can check what the agents' hooks do at turn boundaries.
//
// Why fakes of the model and not of the agent: the hook payloads, their order
// and the files the agents leave behind are only known for sure when the real
// program runs. The model is the one part that must be replaced, because it is
// remote and not deterministic. Each fake speaks one wire API (Anthropic
// Messages, OpenAI Responses or Chat Completions, Gemini
// generateContent), listens on 127.0.0.1
// only, plays a Script, and records every request it receives, so a test can
// also check what reached the model (for example context that a hook added).
//
// A test scripts the model, starts the agent in a repository with its hooks,
// and looks at the files, the hook log and the requests:
//
//	dir := agenttest.NewRepo(t, map[string]string{"a.txt": "a\n"})
//	srv := agenttest.NewClaudeServer(t, agenttest.Script{Steps: []agenttest.Step{
//		agenttest.Do(agenttest.ClaudeWrite(filepath.Join(dir, "b.txt"), "b\n")),
//		agenttest.Do(agenttest.ClaudeBash("rm a.txt")),
//		agenttest.Say("Done."),
//	}})
//	log := filepath.Join(t.TempDir(), "hooks.jsonl")
//	res := agenttest.RunClaude(t, agenttest.Run{Dir: dir, URL: srv.URL, Prompt: "go",
//		Hooks: agenttest.HookConfig(agenttest.LogCommand(log), "Stop")})
//	events := agenttest.ReadHookLog(t, log)
//
// Binary installs the pinned agents (agents.txt) on first use;
// .ci/install-agents installs them ahead of time into the same place.
//
// The package is for tests only: every helper takes a testing.TB, registers
// its own cleanup, and keeps no package-level state.
package agenttest

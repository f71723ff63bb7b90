// Package agenttest drives the real agent programs (Claude Code, Codex CLI,
// Gemini CLI) against fake model servers, so that tests can check what the
// agents' hooks do at turn boundaries.
//
// Why fakes of the model and not of the agent: the hook payloads, their order
// and the files the agents leave behind are only known for sure when the real
// program runs. The model is the one part that must be replaced, because it is
// remote and not deterministic. Each fake speaks one wire API (Anthropic
// Messages, OpenAI Responses, Gemini generateContent), listens on 127.0.0.1
// only, plays a Script, and records every request it receives, so a test can
// also check what reached the model (for example context that a hook added).
//
// The package is for tests only: every helper takes a testing.TB, registers
// its own cleanup, and keeps no package-level state.
package agenttest

// Package e2e holds the end-to-end tests of the agent hooks: the real
// git-checkpoint and git-rewind binaries, installed into a repository with
// `git checkpoint install AGENT` as a user would, driven by the real
// agents (Claude Code, Codex CLI, Gemini CLI, GitHub Copilot CLI,
// OpenCode, Qwen Code, Pi, Kimi Code and Cline; internal/agenttest runs
// them against fake model servers on 127.0.0.1).
//
// Each agent plays the same story: a turn that writes a file and runs a
// shell command that creates, deletes and appends; a person's edit; a
// second turn; then rewinds. The tests check what the journal and `git
// checkpoint list` recorded at the turn boundaries, that `git rewind t1`
// refuses to overwrite the person's edit and otherwise restores the tree
// exactly, that the resume command a rewind prints is one the agent
// accepts, and that the agent's model hears about the rewind in its next
// request. Two more turns end the story, the first ending with a call of
// the agent's file-writing tool and the second running a command: a bare
// `git rewind` then undoes the second turn alone. With Claude Code, two
// prompts are also read back as turns: `git checkpoint log` lists both
// prompts, and `git rewind --only t1` takes out the first turn alone.
//
// Claude Code and Gemini CLI also play a shorter story with git-checkpoint
// as their own package (a plugin, an extension) from the repository's
// plugins/, with nothing installed in the tree.
//
// The package has tests only. They skip when node or npm is missing (the
// agents cannot run), and fail then in CI (CI=true), where .ci/run
// installs them; everywhere else they run, one agent at a time.
package e2e

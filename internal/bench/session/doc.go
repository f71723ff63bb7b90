// Package session measures what the hooks cost a real agent's session:
// the real Claude Code, driven by internal/agenttest's fake model through
// a scripted session of many turns and tool calls (Write, Read and Edit,
// Bash commands that append and delete, parallel calls in one reply) on
// the synthetic trees of internal/bench, timed with the hooks `git
// checkpoint install claude` writes and without them, interleaved round
// by round. A last session with GIT_CHECKPOINT_TRACE on shows where each
// kind of hook spends its time.
//
// The package has tests only. `go test` runs the quick mode (one short
// session on a small tree, judging nothing); `make bench-session` the
// measurement (docs/speed.md, "A real agent's session").
package session

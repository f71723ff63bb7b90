package bench

// The cases of the small trees most repositories are (1k to 20k files),
// where a command's fixed costs (starting processes, reading the journal,
// the lock) weigh more than the tree: a command that does nothing, and the
// read-only commands people type.

// smallCases are the read-only commands, and a hook that runs no git
// process: the fixed cost of every hook call.
func (b *bed) smallCases() []benchCase {
	none := func(int) error { return nil }
	cmd := func(args ...string) func(int) (sample, error) {
		return func(int) (sample, error) { return b.timed(nil, nil, "git", append([]string{"checkpoint"}, args...)...) }
	}
	return []benchCase{
		{key: "noop", label: "a hook with nothing to do (PreToolUse): the shell and the binary start", setup: none, teardown: none,
			run: func(int) (sample, error) {
				return b.hook([]byte(`{"session_id":"bench-session","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"x"}}`))
			}},
		{key: "list", label: "git checkpoint list", setup: none, teardown: none, run: cmd("list")},
		{key: "log", label: "git checkpoint log", setup: none, teardown: none, run: cmd("log")},
		{key: "cstatus", label: "git checkpoint status", setup: none, teardown: none, run: cmd("status")},
	}
}

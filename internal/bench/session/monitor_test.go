package session

import (
	"fmt"
	"os"

	"github.com/git-checkpoint/git-checkpoint/internal/bench"
)

// monitor is watchman with git's sample fsmonitor-watchman hook, for the
// session whose hooks run with checkpoint.fsmonitor: at 100,000 files
// every turn's start and end otherwise scans the whole tree, the most a
// hook costs there (docs/speed.md, "A real agent's session").
type monitor struct {
	dir  string // the tree's top
	hook string // core.fsmonitor: bench.WatchmanHook
}

// agentEnv is what the agent needs for its hooks to ask the watchman
// that watches the tree: the benchmark's TMPDIR, under which watchman
// keeps its socket. A person's agent runs in their environment and finds
// it so; run with a TMPDIR of its own (agenttest), its hooks started a
// watchman of their own, whose first answer was "everything".
func (m *monitor) agentEnv() []string {
	return []string{"TMPDIR=" + os.TempDir()}
}

// newMonitor returns the monitor of the tree at dir, or nil and why it
// cannot run (the watched arm is then left out, and the report says so).
func newMonitor(dir string) (*monitor, string) {
	hook, err := bench.WatchmanHook(dir)
	if err != nil {
		return nil, err.Error()
	}
	return &monitor{dir: dir, hook: hook}, ""
}

// watch starts watching the tree (bench.Watch) and sets the configuration
// in the tree's own .git/config, where the person would set it, so the
// agent's git calls see it too; stop undoes both before the next arm's
// reset.
func (m *monitor) watch(git func(...string) ([]byte, error)) (stop func(), err error) {
	if m == nil {
		return nil, fmt.Errorf("watchman cannot run here")
	}
	unwatch, err := bench.Watch(m.dir)
	if err != nil {
		return nil, err
	}
	keys := [][2]string{{"core.fsmonitor", m.hook}, {"checkpoint.fsmonitor", "true"}}
	stop = func() {
		for _, kv := range keys {
			git("config", "--unset", kv[0])
		}
		unwatch()
	}
	for _, kv := range keys {
		if out, err := git("config", kv[0], kv[1]); err != nil {
			stop()
			return nil, fmt.Errorf("git config %s: %v\n%s", kv[0], err, out)
		}
	}
	return stop, nil
}

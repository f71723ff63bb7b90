package session

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// monitor is watchman with git's sample fsmonitor-watchman hook, for the
// session whose hooks run with checkpoint.fsmonitor: at 100,000 files
// every turn's start and end otherwise scans the whole tree, the most a
// hook costs there (docs/speed.md, "A real agent's session").
type monitor struct {
	dir  string // the tree's top
	hook string // core.fsmonitor: the sample hook in the tree's .git/hooks
}

// newMonitor returns the monitor of the tree at dir, or nil and why it
// cannot run (the watched arm is then left out, and the report says so).
func newMonitor(dir string) (*monitor, string) {
	hook := filepath.Join(dir, ".git", "hooks", "fsmonitor-watchman.sample")
	if _, err := exec.LookPath("watchman"); err != nil {
		return nil, "no watchman on PATH (Debian package watchman)"
	}
	if _, err := os.Stat(hook); err != nil {
		return nil, "no fsmonitor-watchman sample hook in the tree's .git/hooks"
	}
	return &monitor{dir: dir, hook: hook}, ""
}

// watch starts watching the tree and sets the configuration in the
// tree's own .git/config, where the person would set it, so the agent's
// git calls see it too; stop undoes both before the next arm's reset.
// Only this arm's session is watched: watchman takes CPU for every file
// any write touches, which would tax the other arms (as in make bench's
// fsmonitor case).
func (m *monitor) watch(git func(...string) ([]byte, error)) (stop func(), err error) {
	if m == nil {
		return nil, fmt.Errorf("watchman cannot run here")
	}
	if out, err := exec.Command("watchman", "watch-project", m.dir).CombinedOutput(); err != nil || bytes.Contains(out, []byte(`"error"`)) {
		return nil, fmt.Errorf("watchman cannot watch the tree: %v %s", err, bytes.TrimSpace(out))
	}
	keys := [][2]string{{"core.fsmonitor", m.hook}, {"checkpoint.fsmonitor", "true"}}
	stop = func() {
		for _, kv := range keys {
			git("config", "--unset", kv[0])
		}
		exec.Command("watchman", "watch-del", m.dir).Run()
	}
	for _, kv := range keys {
		if out, err := git("config", kv[0], kv[1]); err != nil {
			stop()
			return nil, fmt.Errorf("git config %s: %v\n%s", kv[0], err, out)
		}
	}
	return stop, nil
}

package bench

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// fsmonitorCases is the capture of an unchanged tree with
// checkpoint.fsmonitor and git's sample watchman hook (from the tree's
// .git/hooks, where git init copied it), or nothing, saying why, where
// watchman is missing or cannot watch the tree. The configuration is
// given to this case's commands only (GIT_CONFIG_COUNT); its untimed setup
// capture absorbs the cost of switching the private index to the monitor
// and back.
//
// The case runs in a pass of its own, after the other cases' rounds, and
// the tree is watched only during that pass (unwatch ends it): watchman
// takes CPU for every file a case writes, and on two cores a watcher
// running beside the other cases made their times, the checkpoints' more
// than git status's, longer and noisier.
func (b *bed) fsmonitorCases() (cases []benchCase, unwatch func()) {
	hook := filepath.Join(b.fx.dir, ".git", "hooks", "fsmonitor-watchman.sample")
	why := ""
	if _, err := exec.LookPath("watchman"); err != nil {
		why = "no watchman on PATH (Debian package watchman)"
	} else if _, err := os.Stat(hook); err != nil {
		why = "no fsmonitor-watchman sample hook in the tree's .git/hooks"
	} else if out, err := exec.Command("watchman", "watch-project", b.fx.dir).CombinedOutput(); err != nil || bytes.Contains(out, []byte(`"error"`)) {
		why = fmt.Sprintf("watchman cannot watch the tree: %v %s", err, bytes.TrimSpace(out))
	}
	if why != "" {
		fmt.Fprintf(os.Stderr, "bench: skipping the fsmonitor case: %s\n", why)
		return nil, func() {}
	}
	unwatch = func() { exec.Command("watchman", "watch-del", b.fx.dir).Run() }
	env := []string{"GIT_CONFIG_COUNT=2", "GIT_CONFIG_KEY_0=core.fsmonitor", "GIT_CONFIG_VALUE_0=" + hook,
		"GIT_CONFIG_KEY_1=checkpoint.fsmonitor", "GIT_CONFIG_VALUE_1=true"}
	settle := func(int) error {
		// Twice: the first after a capture without the monitor gives the
		// private index its token (and checks every file).
		for range 2 {
			if _, err := b.timed(env, nil, "git", "checkpoint"); err != nil {
				return err
			}
		}
		return nil
	}
	return []benchCase{{key: "fsmon", label: "git checkpoint, nothing changed, fsmonitor (watchman)",
		setup: settle, teardown: func(int) error { return nil },
		run: func(int) (sample, error) { return b.timed(env, nil, "git", "checkpoint") }}}, unwatch
}

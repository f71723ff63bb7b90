package bench

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// WatchmanHook is git's sample watchman hook in the .git/hooks of the
// tree at dir, where git init copied it: what core.fsmonitor names for
// the monitored cases here and in the session benchmark. The error says
// why there is none to use.
func WatchmanHook(dir string) (string, error) {
	hook := filepath.Join(dir, ".git", "hooks", "fsmonitor-watchman.sample")
	if _, err := exec.LookPath("watchman"); err != nil {
		return "", errors.New("no watchman on PATH (Debian package watchman)")
	}
	if _, err := os.Stat(hook); err != nil {
		return "", errors.New("no fsmonitor-watchman sample hook in the tree's .git/hooks")
	}
	return hook, nil
}

// Watch has watchman watch the tree at dir until unwatch: only while a
// monitored case or session runs, since watchman takes CPU for every file
// any write touches, which on two cores made the other cases slower and
// noisier.
func Watch(dir string) (unwatch func(), err error) {
	if out, err := exec.Command("watchman", "watch-project", dir).CombinedOutput(); err != nil || bytes.Contains(out, []byte(`"error"`)) {
		return nil, fmt.Errorf("watchman cannot watch the tree: %v %s", err, bytes.TrimSpace(out))
	}
	return func() { exec.Command("watchman", "watch-del", dir).Run() }, nil
}

// fsmonitorCases is the capture of an unchanged tree with
// checkpoint.fsmonitor and git's sample watchman hook, or nothing, saying
// why, where watchman is missing or cannot watch the tree. The
// configuration is given to this case's commands only (GIT_CONFIG_COUNT);
// its untimed setup capture absorbs the cost of switching the private
// index to the monitor and back.
//
// The case runs in a pass of its own, after the other cases' rounds, and
// the tree is watched only during that pass (Watch).
func (b *bed) fsmonitorCases() (cases []benchCase, unwatch func()) {
	hook, err := WatchmanHook(b.fx.dir)
	if err == nil {
		unwatch, err = Watch(b.fx.dir)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "bench: skipping the fsmonitor case: %v\n", err)
		return nil, func() {}
	}
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

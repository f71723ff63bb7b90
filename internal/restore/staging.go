package restore

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// The entries of the staging directory: a rewind stages its files in a
// directory named stagingPrefix*, and renames it finishedPrefix* when it
// hands it to a removal of its own (Staged.Remove).
const (
	stagingPrefix  = "rewind-"
	finishedPrefix = "done-"
)

// finishedGrace is how long a finished rewind's directory is taken to be
// still under its own removal, which takes milliseconds: one older than
// that lost its removal (a power loss, a killed session) and is stale.
const finishedGrace = time.Minute

// StaleStaging lists what is left in the staging directory. Rewinds of a
// working tree run one at a time under its lock, so whatever a rewind
// holding the lock finds there was left by a rewind that was killed, or
// is the directory of a finished rewind that a process of its own is
// removing (finishedPrefix): that one is stale only once it is older than
// finishedGrace.
func StaleStaging(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), finishedPrefix) {
			if fi, err := e.Info(); err != nil || time.Since(fi.ModTime()) < finishedGrace {
				continue // being removed, or removed since the listing
			}
		}
		out = append(out, filepath.Join(dir, e.Name()))
	}
	return out, nil
}

// CleanStaging removes what killed rewinds left in the staging directory
// and returns what it removed. The caller holds the lock. Staged files are
// copies of checkpoint content, so nothing is lost with them.
func CleanStaging(dir string) ([]string, error) {
	stale, err := StaleStaging(dir)
	if err != nil {
		return nil, err
	}
	for _, p := range stale {
		if err := os.RemoveAll(p); err != nil {
			return nil, err
		}
	}
	return stale, nil
}

// removeDetached starts `rm -rf` on dir in a session of its own, so that
// neither the command's exit nor a signal to its terminal stops it, and
// does not wait for it; a process that lives on (the MCP server) reaps it.
func removeDetached(dir string) error {
	cmd := exec.Command("rm", "-rf", "--", dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait()
	return nil
}

package restore

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// StaleStaging lists what is left in the staging directory. Every rewind
// removes its own staging files when it returns, and rewinds of a working
// tree run one at a time under its lock, so whatever a rewind holding the
// lock finds there was left by a rewind that was killed.
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

package doctor

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// checkLocks reports the lock files a killed command left where the
// store writes (store.Locks): a capture passes over one, but a prune
// cannot delete a locked ref, and git's own commands stop at a stale
// packed-refs.lock. One that is not yet stale may belong to a git still
// running, and is not a problem yet.
func (d *Doctor) checkLocks(context.Context) ([]Check, error) {
	cs := d.LockProblems()
	if len(cs) == 0 {
		return []Check{{Name: "locks", OK: true, Message: "locks: none left by killed commands"}}, nil
	}
	return cs, nil
}

// LockProblems is checkLocks' findings, for status too.
func (d *Doctor) LockProblems() []Check {
	var cs []Check
	for _, l := range d.Store.Locks() {
		if l.Stale() {
			cs = append(cs, Check{Name: "locks", Message: "locks: " + d.lockWords(l),
				Fix: "'git checkpoint doctor --fix' removes it"})
		}
	}
	return cs
}

// lockWords names a stale lock and its age.
func (d *Doctor) lockWords(l store.LockFile) string {
	return fmt.Sprintf("%s was left by a killed command %s", fault.Quote(d.display(l.Path)), fault.Ago(l.Age))
}

// repairLocks removes the stale locks. The caller holds the store lock.
func (d *Doctor) repairLocks() ([]string, error) {
	removed, err := d.Store.RemoveStaleLocks()
	var did []string
	for _, l := range removed {
		did = append(did, fmt.Sprintf("removed %s, which a killed command left", fault.Quote(d.display(l.Path))))
	}
	if err != nil {
		return did, fault.Wrap(err, fault.FailedIO, "cannot remove a lock a killed command left")
	}
	return did, nil
}

// display is path from the top of the working tree when it is inside
// it (.git/refs/...), as a person looks for it, and whole otherwise.
func (d *Doctor) display(path string) string {
	if rel, err := filepath.Rel(d.Repo.Top, path); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return path
}

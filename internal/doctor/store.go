package doctor

import (
	"context"
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/restore"
)

// checkStore reports a store no checkpoint can be written to: one on a
// read-only filesystem, one the user may not write, one whose filesystem
// is all but full. Hooks fail open there without a word, and when the
// store itself cannot be written they cannot even record that they
// failed, so this is where the person learns of it.
func (d *Doctor) checkStore(context.Context) ([]Check, error) {
	return d.StoreProblems(), nil
}

// StoreProblems is checkStore's findings, for status too.
func (d *Doctor) StoreProblems() []Check {
	dir := d.Store.Dir
	if unix.Access(dir, unix.F_OK) != nil {
		dir = d.Repo.CommonDir // not made yet: made there at the first capture
	}
	var cs []Check
	switch {
	case readOnlyFS(dir):
		cs = append(cs, Check{Name: "store", Message: fmt.Sprintf("store: %s is on a read-only filesystem: no checkpoint can be taken, and hooks take none without a word", fault.Quote(dir)),
			Fix: "remount it read-write"})
	case unix.Access(dir, unix.W_OK) != nil:
		cs = append(cs, Check{Name: "store", Message: fmt.Sprintf("store: you may not write %s: no checkpoint can be taken, and hooks take none without a word", fault.Quote(dir)),
			Fix: "make it yours again: chown -R \"$(id -un)\" " + fault.ShellQuote(dir) + " (or run as the user who owns it)"})
	}
	if free, low, ok := restore.LowOnSpace(dir); ok && low {
		cs = append(cs, Check{Name: "store", Message: fmt.Sprintf("store: the filesystem of %s has %d KiB free: captures and rewinds will fail", fault.Quote(dir), free>>10),
			Fix: "free some space there ('df -h " + fault.ShellQuote(dir) + "' shows it)"})
	}
	return cs
}

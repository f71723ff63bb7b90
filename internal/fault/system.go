package fault

import (
	"errors"
	"strings"
	"syscall"
)

// A full disk, a read-only filesystem and a place the user may not write
// are not bugs and not git's doing, yet they reach the top as whatever
// failed first: a git command, a file write. Said as "git status failed:
// fatal: sha1 file ... write error", the person cannot tell that the fix
// is theirs and simple. Explain finds such a cause anywhere in the chain,
// also in git's own words on stderr (git reports errno as text), and says
// what it is and what to do about it.

// systemCause is one cause Explain recognizes.
type systemCause struct {
	code   Code
	errnos []syscall.Errno
	words  []string // how git and the C library print it
	what   string   // the message's prefix
	hint   string
}

var systemCauses = []systemCause{
	{FailedNoSpace, []syscall.Errno{syscall.ENOSPC, syscall.EDQUOT},
		[]string{"no space left on device", "out of diskspace", "disk quota exceeded"},
		"the disk is full",
		"free some space on the filesystem that holds the repository ('df -h .' shows it), then run the command again"},
	{FailedReadOnly, []syscall.Errno{syscall.EROFS},
		[]string{"read-only file system"},
		"the filesystem is read-only",
		"remount it read-write, or work in a copy on a writable filesystem"},
	{FailedPermission, []syscall.Errno{syscall.EACCES, syscall.EPERM},
		[]string{"permission denied", "operation not permitted"},
		"permission denied",
		"check the owner and permissions of the place named ('ls -ld'), or run the command as the user who owns the repository"},
}

// Explain returns err with its cause said, when the cause is a full disk,
// a read-only filesystem or a missing permission; otherwise err as it is.
// An error that only says something failed (failed.io, failed.git, or one
// without a code) takes the cause's code; a rewind's failure keeps its
// code, which says whether the tree was put back, and gains the hint.
func Explain(err error) error {
	if err == nil {
		return nil
	}
	c := causeOf(err)
	if c == nil {
		return err
	}
	fe := As(err)
	for _, h := range fe.Hints {
		if h == c.hint {
			return fe // explained already
		}
	}
	out := *fe
	switch fe.Code {
	case FailedIO, FailedGit, FailedInternal:
		out.Code = c.code
		out.Message = c.what + ": " + fe.Message
	case FailedRewindUndone, FailedRewindPartial:
	default:
		return err // its code says what to do already
	}
	out.Hints = append([]string{c.hint}, fe.Hints...)
	return &out
}

// causeOf finds the first cause Explain knows in err.
func causeOf(err error) *systemCause {
	text := strings.ToLower(err.Error())
	for i, c := range systemCauses {
		for _, n := range c.errnos {
			if errors.Is(err, n) {
				return &systemCauses[i]
			}
		}
		for _, w := range c.words {
			if strings.Contains(text, w) {
				return &systemCauses[i]
			}
		}
	}
	return nil
}

// NoSpace reports whether err's cause is a full disk or a used-up quota.
func NoSpace(err error) bool {
	if err == nil {
		return false
	}
	c := causeOf(err)
	return c != nil && c.code == FailedNoSpace
}

package fault

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"
)

// TestExplain: a full disk, a read-only filesystem or a permission is
// found as an errno in the chain or in git's words, and said.
func TestExplain(t *testing.T) {
	for _, c := range []struct {
		err  error
		code Code
	}{
		{Wrap(&os.PathError{Op: "write", Path: "x", Err: syscall.ENOSPC}, FailedIO, "cannot write"), FailedNoSpace},
		{Wrap(errors.New("fatal: sha1 file 'i.lock' write error. Out of diskspace"), FailedGit, "git status failed"), FailedNoSpace},
		{Wrap(errors.New("error: unable to write file: No space left on device"), FailedGit, "git add failed"), FailedNoSpace},
		{fmt.Errorf("cannot write a: %w", syscall.EROFS), FailedReadOnly},
		{Wrap(errors.New("fatal: Unable to create '/r/.git/index.lock': Read-only file system"), FailedGit, "x"), FailedReadOnly},
		{Wrap(errors.New("fatal: Unable to create '/r/.git/index.lock': Permission denied"), FailedGit, "x"), FailedPermission},
		{Wrap(syscall.EACCES, FailedIO, "cannot lock"), FailedPermission},
		{Wrap(errors.New("bad object"), FailedGit, "x"), FailedGit},
		{Wrap(syscall.ENOSPC, FailedRewindUndone, "put back"), FailedRewindUndone},
		{New(FailedCommandNotExecutable, "x: permission denied"), FailedCommandNotExecutable},
	} {
		fe := As(Explain(c.err))
		if fe.Code != c.code {
			t.Errorf("%v: code %s, want %s", c.err, fe.Code, c.code)
		}
		if c.code == FailedRewindUndone && len(fe.Hints) != 1 {
			t.Errorf("%v: hints %q, want the cause's", c.err, fe.Hints)
		}
		if again := As(Explain(fe)); len(again.Hints) != len(fe.Hints) {
			t.Errorf("%v: explained twice: %q", c.err, again.Hints)
		}
	}
}

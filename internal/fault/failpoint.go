package fault

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"
)

// Failpoints is the test-only failure injection named by
// GIT_CHECKPOINT_FAILPOINT: a comma-separated list of STEP or
// STEP:ACTION. One type serves every package that has steps (the capture,
// the rewind transaction, the applier), so that a transcript can crash or
// fail a command at any of them the same way. A nil Failpoints injects
// nothing.
//
// ACTION is "error" (the default: the step fails as an I/O error would),
// "enospc" (it fails as a write to a full disk would, with ENOSPC),
// "kill" (the process kills itself with SIGKILL, as a crash or power loss
// would) or "pause=FILE" (it creates FILE and waits until FILE is removed,
// at most a minute, so that a test can change the tree at exactly that
// point; a file rather than SIGSTOP, which the kernel's job control can
// undo behind the test's back).
//
// The steps of a rewind, in order: scanned (the scan is done, its pack and
// state perhaps still being written aside), safety (the safety checkpoint
// exists, nothing else happened), started (rewind_started is journaled),
// ahead (a commit the scan's pack does not hold, the safety checkpoint's
// or the one after the rewind, is about to be written aside; a failure
// there leaves that commit to be made when its checkpoint is), staged,
// delete-N, deleted, rename-N, renamed (see restore.Applier), head and
// index (--reset-head moved the branch, then the index), after (the files
// are in place, the checkpoint after them is about to be taken), captured (the
// result is checkpointed and verified) and ended (rewind_ended is
// journaled). Putting a tree back after a failure goes through the same
// file steps with an "undo-" prefix. A capture has three steps: indexed
// (the private index holds the scan's changes), saved (the snapshot's
// objects and the private index's state are written, unsynced; no commit
// nor ref yet) and ref (its ref exists, not yet synced nor journaled). A
// prune has one: pruned (its event is journaled, its refs not yet
// deleted). A bisect has one: bisect-step
// (a candidate's files are in the temporary worktree, CMD is about to
// run there), where kill leaves the worktree behind for doctor to find.
type Failpoints map[string]string

// ParseFailpoints reads the GIT_CHECKPOINT_FAILPOINT syntax; "" is none.
func ParseFailpoints(spec string) Failpoints {
	if spec == "" {
		return nil
	}
	f := Failpoints{}
	for _, item := range strings.Split(spec, ",") {
		step, action, _ := strings.Cut(strings.TrimSpace(item), ":")
		f[step] = action
	}
	return f
}

// At runs the action set for step, if any: the error it returns is the
// step's failure.
func (f Failpoints) At(step string) error {
	action, ok := f[step]
	if !ok {
		return nil
	}
	switch {
	case action == "enospc":
		return fmt.Errorf("injected failure at %s: %w", step, syscall.ENOSPC)
	case action == "kill":
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
	case strings.HasPrefix(action, "pause="):
		file := strings.TrimPrefix(action, "pause=")
		if err := os.WriteFile(file, nil, 0o644); err != nil {
			return err
		}
		for i := 0; i < 60000; i++ {
			if _, err := os.Lstat(file); err != nil {
				return nil
			}
			time.Sleep(time.Millisecond)
		}
		return nil
	}
	return errors.New("injected failure at " + step)
}

package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
)

// Lock takes the working tree's lock, waiting at most timeout. Every writer
// (capture, rewind, prune) holds it, so parallel hooks of one agent
// serialize instead of racing on the private index. The holder writes its
// pid into the file so a timeout can name it; the file is never deleted,
// because deleting a flock file lets two processes hold "the" lock.
func (s *Store) Lock(ctx context.Context, timeout time.Duration) (unlock func(), err error) {
	if err := s.Init(); err != nil {
		return nil, err
	}
	path := s.Path("lock")
	fl := flock.New(path)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ok, err := wait(ctx, fl)
	if !ok {
		holder := "another git-checkpoint process"
		if b, rerr := os.ReadFile(path); rerr == nil {
			if pid := strings.TrimSpace(string(b)); pid != "" {
				holder = "process " + pid
			}
		}
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			return nil, fault.Wrap(err, fault.FailedIO, "cannot lock %s", path)
		}
		return nil, fault.New(fault.TimeoutLock, "the checkpoint store is locked by %s", holder).
			WithHint("wait for it to finish, or raise checkpoint.lockTimeout (now " + timeout.String() + ")").
			WithData(map[string]string{"holder": holder})
	}
	return s.held(fl), nil
}

// TryLock takes the lock if it is free at once, and reports whether it
// did.
func (s *Store) TryLock() (unlock func(), ok bool) {
	if s.Init() != nil {
		return nil, false
	}
	fl := flock.New(s.Path("lock"))
	if ok, err := fl.TryLock(); !ok || err != nil {
		return nil, false
	}
	return s.held(fl), true
}

// held names this process as the holder of the lock fl has just taken,
// and returns its unlock, which first waits for the writes this process
// left aside (git.Aside): the next holder reads what they write.
func (s *Store) held(fl *flock.Flock) func() {
	// One write of a fixed width over the previous holder's pid: truncating
	// first would let a waiter that times out in between read nothing.
	if f, err := os.OpenFile(fl.Path(), os.O_WRONLY, 0); err == nil {
		f.WriteAt([]byte(fmt.Sprintf("%-19d\n", os.Getpid())), 0)
		f.Close()
	}
	// No command of ours writes the private index or its scratch
	// indexes now (every writer holds this lock), so a lock beside one
	// was left by a killed capture, and would make every later one fail.
	s.settleIndexLocks()
	if s.Git != nil {
		s.Git.Written.Hold()
	}
	return func() {
		if s.Git != nil {
			s.Git.Aside.Settle()
			s.settleWritten()
		}
		fl.Unlock()
	}
}

// wait takes fl, blocking in the kernel rather than polling: parallel
// hooks queue on this lock, each holding it briefly, and a waiter that
// polled lost half its interval at every turn of the queue, so that ten
// hooks took far more than the one git status the design allows. A waiter
// the kernel wakes takes the lock the moment it is free. When ctx ends
// first, the blocked call is left to finish on its own and gives the lock
// straight back.
func wait(ctx context.Context, fl *flock.Flock) (bool, error) {
	if ok, err := fl.TryLock(); ok || err != nil {
		return ok, err
	}
	got := make(chan error, 1)
	go func() { got <- fl.Lock() }()
	select {
	case err := <-got:
		return err == nil, err
	case <-ctx.Done():
		go func() {
			if <-got == nil {
				fl.Unlock()
			}
		}()
		return false, ctx.Err()
	}
}

// settleWritten leaves the next writer nothing of this run's to sync
// where it can: what the run wrote and named without syncing it (a
// capture that found the tree unchanged after packing the files it
// hashed again) is synced now, a few directories, and its mark goes. A
// write it could not name keeps the mark, and the next writer syncs the
// filesystem (git.Written).
func (s *Store) settleWritten() {
	w := s.Git.Written
	if w.OnlyNamed() {
		s.sync("") // a failure keeps the mark
	}
	w.Release()
}

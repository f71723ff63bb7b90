package workspace

import (
	"context"

	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// EarlyLock takes over the store lock the early scan holds; ok is false
// when there is none.
func (w *Workspace) EarlyLock() (unlock func(), ok bool) {
	e := w.early
	if e == nil {
		return nil, false
	}
	w.early = nil
	return e.Release, true
}

// Release lets go of an early scan no lock took.
func (w *Workspace) Release() {
	w.early.Release()
	w.early = nil
}

// Lock takes the store lock for a writer: the one the early scan holds,
// if it does. The caller unlocks when it is done.
func (w *Workspace) Lock(ctx context.Context) (func(), error) {
	release, ok := w.EarlyLock()
	if !ok {
		end := w.Git.Phase("lock wait")
		var err error
		release, err = w.Store.Lock(ctx, w.Config.LockTimeout)
		end()
		if err != nil {
			return nil, err
		}
	}
	w.held = true
	// The early scan took its lock before the runner noted writes.
	w.Git.Written.Hold()
	return func() {
		w.held = false
		release()
	}, nil
}

// LockedJournal takes the store lock and reads the journal under it, as
// every writer does first. The caller unlocks when it is done.
func (w *Workspace) LockedJournal(ctx context.Context) (*store.Journal, func(), error) {
	unlock, err := w.Lock(ctx)
	if err != nil {
		return nil, nil, err
	}
	j, err := w.Store.Journal()
	if err != nil {
		unlock()
		return nil, nil, err
	}
	return j, unlock, nil
}

// readJournal reads the journal, then lists the checkpoint refs. A
// checkpoint is written ref first, journal line second, so a reader
// without the lock that races a capture sees at worst a ref without a
// record, which Journal repairs under the lock; the other order could
// show a record whose ref seems deleted. Under the lock nothing is
// written meanwhile, and the refs are listed (a git process) while the
// journal is read and its chain checked: every rewind waits for both.
func (w *Workspace) readJournal(ctx context.Context) (*store.Journal, store.Refs, error) {
	if !w.held {
		j, err := w.Store.Journal()
		if err != nil {
			return nil, nil, err
		}
		refs, err := w.Store.Refs(ctx)
		return j, refs, err
	}
	var refs store.Refs
	var refsErr error
	listed := make(chan struct{})
	go func() {
		defer close(listed)
		refs, refsErr = w.Store.Refs(ctx)
	}()
	j, err := w.Store.Journal()
	<-listed
	if err == nil {
		err = refsErr
	}
	return j, refs, err
}

// Journal reads the journal and repairs it when it must be (a damaged or
// lost journal is rebuilt, checkpoint refs without a record are adopted),
// so every command sees what a crashed run left behind, and says what it
// repaired (Warn). It takes the lock only when there is something to
// repair, and not again when the caller already holds it.
func (w *Workspace) Journal(ctx context.Context) (*store.Journal, store.Refs, error) {
	j, refs, err := w.readJournal(ctx)
	if err != nil {
		return nil, nil, err
	}
	if !store.NeedsRepair(j, refs) {
		return j, refs, nil
	}
	if !w.held {
		unlock, err := w.Lock(ctx)
		if err != nil {
			return nil, nil, err
		}
		defer unlock()
		if j, err = w.Store.Journal(); err != nil {
			return nil, nil, err
		}
	}
	did, err := w.Store.Repair(ctx, j, refs)
	if err != nil {
		return nil, nil, err
	}
	for _, d := range did {
		w.Warn("%s", d)
	}
	return j, refs, nil
}

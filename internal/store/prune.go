package store

import (
	"context"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
)

// Retention is the rule set of DESIGN 5.4 (checkpoint.keep, keepFor and
// keepSafety).
type Retention struct {
	Keep       int           // newest checkpoints kept, safety ones aside
	KeepFor    time.Duration // anything younger is kept
	KeepSafety time.Duration // how long pre_rewind checkpoints are kept
}

// PruneResult is what a prune did, or would do.
type PruneResult struct {
	Pruned    []*Record // refs deleted
	Forgotten []*Record // records whose ref was already deleted
	Kept      int       // checkpoints that stay
	// Orphans are what went of removed worktrees' checkpoints.
	Orphans []OrphanPruned
}

// PruneEvery is how often PruneIfDue prunes at most.
const PruneEvery = time.Hour

// Select applies the retention rules. A checkpoint goes when it is beyond
// the newest r.Keep and older than r.KeepFor; a safety checkpoint
// (pre_rewind) goes when it is older than r.KeepSafety, whatever the
// count. Never pruned: the newest checkpoint, and the safety checkpoint of
// an interrupted rewind (--undo needs it). Records whose ref was deleted
// are forgotten; a ref that points elsewhere than its record is left for
// doctor, since something other than the tool moved it.
func Select(j *Journal, refs Refs, r Retention, now time.Time) (doomed, forgotten []*Record, kept int) {
	var live []*Record
	pruned := j.PrunedIDs()
	for _, c := range j.Checkpoints() {
		switch {
		case refs.Live(c) && pruned[c.ID]:
			// A prune cut short named it and left its ref: it goes,
			// as that prune decided, whatever the rules say now.
			doomed = append(doomed, c)
		case refs.Live(c):
			live = append(live, c)
		case refs[c.N] == "" && !pruned[c.ID]:
			forgotten = append(forgotten, c)
		}
	}
	slices.SortFunc(live, func(a, b *Record) int { return b.N - a.N }) // newest first
	protect := ""
	if started, ended := j.LastRewind(); started != nil && !ended {
		protect = started.Safety
	}
	rank := 0
	for i, c := range live {
		age := now.Sub(c.At)
		keep := i == 0 || c.ID == protect
		if c.Reason == ReasonPreRewind {
			keep = keep || age < r.KeepSafety
		} else {
			keep = keep || rank < r.Keep || age < r.KeepFor
			rank++
		}
		if keep {
			kept++
		} else {
			doomed = append(doomed, c)
		}
	}
	slices.SortFunc(doomed, func(a, b *Record) int { return a.N - b.N })
	return doomed, forgotten, kept
}

// Prune applies retention now. A pruned event names the checkpoints,
// then their refs are deleted in one `update-ref --stdin` transaction,
// each with its expected old value, so a ref that moved in the meantime
// fails the whole transaction instead of being lost; then the journal
// is compacted (Compact), so that it holds what retention keeps and does
// not grow with every hook call forever. gc is never run: the objects go when the repository's own
// gc gets to them. With dry, nothing changes. The caller holds the lock.
func (s *Store) Prune(ctx context.Context, j *Journal, refs Refs, r Retention, dry bool) (*PruneResult, error) {
	doomed, forgotten, kept := Select(j, refs, r, s.Now())
	if !dry {
		// A ref whose lock (or packed-refs.lock) a killed command left
		// cannot be deleted, and would fail the whole transaction: it
		// stays until the lock is stale, and goes then (refDeletable
		// removes it).
		doomed = slices.DeleteFunc(doomed, func(c *Record) bool {
			if s.refDeletable(s.Ref(c.N)) {
				return false
			}
			kept++
			return true
		})
	}
	res := &PruneResult{Pruned: doomed, Forgotten: forgotten, Kept: kept}
	orphans, err := s.pruneOrphans(ctx, r, s.Now(), dry)
	if err != nil {
		return nil, err
	}
	res.Orphans = orphans
	if dry || len(doomed)+len(forgotten) == 0 {
		return res, nil
	}
	// The pruned event is journaled before the refs go: a prune killed
	// in between leaves records that say pruned of refs that are still
	// there, which the next prune deletes (and any command can still
	// use), never records of refs that vanished unannounced, which doctor
	// would have to call lost.
	var ids []string
	for _, c := range append(append([]*Record{}, doomed...), forgotten...) {
		ids = append(ids, c.ID)
	}
	if err := s.Append(j, Event{Type: EventPruned, Pruned: ids}); err != nil {
		return nil, err
	}
	if err := s.Fail.At("pruned"); err != nil {
		return nil, err
	}
	if err := s.deleteRefs(ctx, doomed); err != nil {
		return nil, err
	}
	if _, err := s.Compact(j); err != nil {
		return nil, fault.Wrap(err, fault.FailedIO, "pruned %d checkpoints, but could not compact the journal (it is whole as it is)", len(ids))
	}
	return res, nil
}

// deleteRefs deletes the refs of recs in one transaction, each only
// while it names its record's commit.
func (s *Store) deleteRefs(ctx context.Context, recs []*Record) error {
	var deletes []git.RefUpdate
	for _, c := range recs {
		if c.Commit == "" {
			continue // a record without a commit has no ref to delete
		}
		deletes = append(deletes, git.RefUpdate{Ref: s.Ref(c.N), Old: c.Commit})
	}
	if len(deletes) == 0 {
		return nil
	}
	// Every caller left out the refs that are not refDeletable: their
	// locks, packed-refs.lock among them, are gone.
	if err := s.Git.UpdateRefs(ctx, deletes); err != nil {
		return fault.Wrap(err, fault.FailedGit, "cannot delete the pruned checkpoints' refs; none was deleted")
	}
	return nil
}

// CutShortPrune says whether a prune was cut short (killed, a power
// loss, a ref it could not delete) after it journaled its pruned event:
// every prune that finishes compacts the journal, which takes the event
// out, so one still there marks it. left are the checkpoints the journal
// says were pruned whose refs are still there, naming their commits.
func CutShortPrune(j *Journal, refs Refs) (cut bool, left []*Record) {
	j.whole()
	for _, l := range j.lines {
		cut = cut || l.typ == EventPruned
	}
	if !cut {
		return false, nil
	}
	pruned := j.PrunedIDs()
	for _, c := range j.Checkpoints() {
		if c.Commit != "" && refs.Live(c) && pruned[c.ID] {
			left = append(left, c)
		}
	}
	return true, left
}

// FinishPrune finishes a prune that was cut short (CutShortPrune) as it
// would have finished: the refs it left go, and the journal is
// compacted. A ref whose lock, or packed-refs.lock, is young (a git
// still writing it, or one killed moments ago: refDeletable) stays, and
// so does the prune, unfinished
// for a later call: compacting would drop the record of a ref still
// there. It returns the checkpoints whose refs it deleted and those it
// left locked. The caller holds the lock.
func (s *Store) FinishPrune(ctx context.Context, j *Journal, refs Refs) (deleted, locked []*Record, err error) {
	cut, left := CutShortPrune(j, refs)
	if !cut {
		return nil, nil, nil
	}
	for _, c := range left {
		if s.refDeletable(s.Ref(c.N)) {
			deleted = append(deleted, c)
		} else {
			locked = append(locked, c)
		}
	}
	if err := s.deleteRefs(ctx, deleted); err != nil {
		return nil, locked, err
	}
	if len(locked) > 0 {
		return deleted, locked, nil
	}
	if _, err := s.Compact(j); err != nil {
		return deleted, nil, fault.Wrap(err, fault.FailedIO, "cannot compact the journal (it is whole as it is)")
	}
	return deleted, nil, nil
}

// PruneIfDue prunes when the last prune is at least PruneEvery old, and
// otherwise does nothing and returns nil. It is meant for the end of an
// agent's turn, where it costs one for-each-ref at most once an hour. The
// time of the last prune is kept in the state directory (prune.stamp). The
// caller holds the lock.
func (s *Store) PruneIfDue(ctx context.Context, j *Journal, r Retention) (*PruneResult, error) {
	stamp := s.Path("prune.stamp")
	if b, err := os.ReadFile(stamp); err == nil {
		if last, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(string(b))); err == nil {
			if since := s.Now().Sub(last); since >= 0 && since < PruneEvery {
				return nil, nil
			}
		}
	}
	// Stamp first: a prune that fails is not retried on every turn.
	if err := s.Init(); err != nil {
		return nil, err
	}
	if err := os.WriteFile(stamp, []byte(s.Now().UTC().Format(time.RFC3339Nano)+"\n"), PrivateFile); err != nil {
		return nil, fault.Wrap(err, fault.FailedIO, "cannot write %s", stamp)
	}
	refs, err := s.Refs(ctx)
	if err != nil {
		return nil, err
	}
	return s.Prune(ctx, j, refs, r, false)
}

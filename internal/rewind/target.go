package rewind

import (
	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
	"github.com/git-checkpoint/git-checkpoint/internal/turns"
)

// DefaultTarget is the start of the latest turn whose files differ from
// the tree's (tree and its raw overlay raw, as a snapshot has them: a
// difference of line endings alone is one, as the plan finds it);
// without turns, the newest checkpoint that differs, passing over the
// ones rewinds take themselves (pre_rewind, rewind) and partial ones. A
// turn start counts whichever way its checkpoint was first made: a turn
// start scans the whole tree, so one that reuses a tool call's partial
// checkpoint found exactly that tree (passing over it undid two turns).
// Either way `git rewind` twice goes further back: right after a rewind,
// only checkpoints older than its target count. It never redoes (that is
// --undo).
func DefaultTarget(j *store.Journal, refs store.Refs, tree, raw string) *store.Record {
	before := rewoundTo(j)
	usable := func(c *store.Record) bool {
		return !c.Holds(tree, raw) && refs.Live(c) && c.N < before
	}
	for c := range turns.LatestStarts(j) {
		if usable(c) {
			return c
		}
	}
	recs := j.Records()
	for i := recs.Len() - 1; i >= 0; i-- {
		if recs.Reused(i) {
			continue
		}
		c := recs.Get(i)
		if c.ID != "" && usable(c) && !c.Partial && c.Reason != store.ReasonPreRewind && c.Reason != store.ReasonRewind {
			return c
		}
	}
	return nil
}

// defaultTargetOrError is DefaultTarget, or the error that says why there
// is none.
func defaultTargetOrError(j *store.Journal, refs store.Refs, tree, raw string) (*store.Record, error) {
	if t := DefaultTarget(j, refs, tree, raw); t != nil {
		return t, nil
	}
	if len(refs) == 0 {
		return nil, fault.New(fault.NotFoundCheckpoint, "there are no checkpoints of this working tree yet").
			WithHint("take one with 'git checkpoint', or set up your agent's hooks with 'git checkpoint install AGENT'")
	}
	if to := rewoundTo(j); to <= j.MaxN() {
		// Right after a rewind only older checkpoints count, so that a
		// second bare rewind goes further back.
		return nil, fault.New(fault.NotFoundCheckpoint, "no checkpoint before k%d, where the last rewind went, differs from the working tree", to).
			WithHint("name the checkpoint to go to ('git checkpoint list' shows them), or undo that rewind with 'git rewind --undo'")
	}
	return nil, fault.New(fault.NotFoundCheckpoint, "no checkpoint differs from the working tree").
		WithHint("list them with 'git checkpoint list'")
}

// rewoundTo returns the number of the checkpoint the last rewind went to,
// when nothing new was recorded since (no new checkpoint, no turn start),
// and otherwise a number above every checkpoint's. After --undo, or a
// rewind that failed, the tree is where it was: no limit either.
func rewoundTo(j *store.Journal) int {
	for i := j.Len() - 1; i >= 0; i-- {
		ev := j.Event(i)
		if c := ev.Checkpoint; c != nil && (!c.Reused || turns.IsStart(c)) {
			break
		}
		if ev.Type == store.EventRewindEnded && ev.Rewind != nil {
			if ev.Rewind.Undo || ev.Rewind.Error != "" {
				break
			}
			if r := j.ByID(ev.Rewind.Target); r != nil {
				return r.N
			}
			break
		}
	}
	return j.MaxN() + 1
}

// rewindWithSafety finds the rewind whose safety checkpoint is id: the one
// an interrupted --undo was undoing.
func rewindWithSafety(j *store.Journal, id string) *store.Rewind {
	for i := j.Len() - 1; i >= 0; i-- {
		if ev := j.Event(i); ev.Type == store.EventRewindStarted && ev.Rewind != nil && ev.Rewind.Safety == id {
			return ev.Rewind
		}
	}
	return nil
}

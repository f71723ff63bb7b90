package rewind

import (
	"context"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/turns"
)

// Retarget is the dry run of base's request with the checkpoint id as its
// target, planned against base's snapshot instead of a new scan: a front
// end that shows the plan of each of several targets in turn (the picker
// of `git rewind -i`) scans the tree once, not once per target, which on a
// large tree is most of a plan's cost.
//
// It reads only the journal and snapshot base holds and git's objects, so
// the caller need not hold the lock; what it returns is only ever shown.
// The rewind a person then chooses is prepared again, under the lock, from
// a new snapshot, and goes through the usual plan and confirmation. It
// plans the files alone: base must be a dry run without --undo or
// --reset-head, whose head move belongs to one target.
func (r *Rewinder) Retarget(ctx context.Context, base *Prepared, id string) (*Prepared, error) {
	if !base.req.DryRun || base.req.Undo || base.req.ResetHead {
		return nil, fault.New(fault.FailedInternal, "a retargeted plan needs a dry run without --undo or --reset-head")
	}
	req := base.req
	req.ID = id
	pr := &Prepared{Journal: base.Journal, Snap: base.Snap, Interrupted: base.Interrupted, Refused: base.Refused,
		req: req, refs: base.refs}
	var err error
	if pr.Target, err = turns.Resolve(pr.Journal, pr.refs, id); err != nil {
		return nil, err
	}
	if pr.classify, err = turns.Classify(ctx, r.Git, pr.Journal, pr.Target, pr.Snap.Tree); err != nil {
		return nil, err
	}
	if pr.Plan, err = r.Replan(ctx, pr, req.Outside); err != nil {
		return nil, err
	}
	if err := r.checkPaths(pr.Plan, req.Paths); err != nil {
		return nil, err
	}
	return pr, nil
}

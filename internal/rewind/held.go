package rewind

import (
	"context"

	"github.com/git-checkpoint/git-checkpoint/internal/restore"
)

// The two operations below are what every front end composes: Plan to
// show a rewind, ApplyPlan to apply one. Each takes the store lock and
// lets it go before it returns, so the lock is never held while a person
// or a model reads a plan: agents' hooks would wait on it. What was shown
// is bound to what is applied by the plan's id, which ApplyPlan checks on
// the plan it prepares again under the lock.

// Plan prepares req under the store lock: the plan to show, its outside
// edits not yet judged (OutsideEdits), nothing written but the scan's
// objects. A killed rewind's staged files are cleaned up first: the lock
// says no rewind of this tree runs now.
func (r *Rewinder) Plan(ctx context.Context, req Request) (*Prepared, error) {
	unlock, err := r.Lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	restore.CleanStaging(r.Store.Path("staging"))
	return r.prepare(ctx, req)
}

// ApplyPlan prepares req under the store lock and applies it, when it is
// the plan shown (plan, a plan id; "" when none was shown, as with
// --yes) and it overwrites no person's edits that req does not allow. It
// returns the prepared rewind with the error that stopped it (a stale
// plan, outside edits), so that the caller can show what was refused; and
// Applied nil when there was nothing to write (an interrupted undo's
// record is then closed).
func (r *Rewinder) ApplyPlan(ctx context.Context, req Request, plan string) (*Prepared, *Applied, error) {
	unlock, err := r.Lock(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer unlock()
	restore.CleanStaging(r.Store.Path("staging"))
	pr, err := r.prepare(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	if err := pr.Check(plan); err != nil {
		return pr, nil, err
	}
	if refusal := pr.OutsideEdits(); refusal != nil {
		return pr, nil, refusal
	}
	if err := r.CloseInterrupted(pr); err != nil {
		return pr, nil, err
	}
	if pr.Nothing() {
		return pr, nil, nil
	}
	done, err := r.apply(ctx, pr)
	return pr, done, err
}

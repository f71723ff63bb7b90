package rewind

import (
	"context"

	"github.com/git-checkpoint/git-checkpoint/internal/restore"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
	"github.com/git-checkpoint/git-checkpoint/internal/turns"
)

// classifyAside starts the classification of every path (whose change it
// is) beside the plan's own diff: each is a git diff-tree over the same
// large trees, and the plan asks for a class only once its diff is read.
// The classifier returned waits for the result; wait returns the
// classification's error, which the caller must check before using a plan
// made with it (a failed classification answers "unattributed").
func (r *Rewinder) classifyAside(ctx context.Context, j *store.Journal, target *store.Record, current string) (classify restore.Classifier, wait func() error) {
	done := make(chan struct{})
	var got restore.Classifier
	var err error
	go func() {
		defer close(done)
		end := r.Git.Phase("classify")
		got, err = turns.Classify(ctx, r.Git, j, target, current)
		end()
	}()
	classify = func(p string) string {
		<-done
		if got == nil {
			return turns.ClassUnattributed
		}
		return got(p)
	}
	return classify, func() error { <-done; return err }
}

// Turnless reports whether the plan's classes had nothing to come from:
// the target is this tree's, and its journal records no agent turn
// (manual checkpoints only), so every path is unattributed whatever it
// is. A text plan says so once instead of on every line.
func (pr *Prepared) Turnless() bool {
	return !pr.foreign && !pr.Journal.HasTurns()
}

package picker

import (
	"context"
	"fmt"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
	"github.com/git-checkpoint/git-checkpoint/internal/turns"
)

// Entries lists the turns of the journal that can be rewound to (their
// start is still recorded), newest first, each with what it changed from
// its start to its end, all diffed in one git process. A turn without an
// end (running, or its end never recorded) says so instead of counts. age
// says how long ago a time was.
func Entries(ctx context.Context, r *git.Runner, j *store.Journal, age func(time.Time) string) ([]Entry, error) {
	var ts []turns.Turn
	for _, t := range turns.History(j) {
		if t.Start != nil {
			ts = append(ts, t)
		}
	}
	diffs, err := turns.Diff(ctx, r, ts)
	if err != nil {
		return nil, err
	}
	out := make([]Entry, 0, len(ts))
	for i := len(ts) - 1; i >= 0; i-- {
		t := ts[i]
		changes := "no end"
		if t.End != nil {
			c := turns.Counts(diffs[i])
			changes = fmt.Sprintf("~%d +%d -%d", c.Modified, c.Added, c.Deleted)
		}
		out = append(out, Entry{ID: t.ID, Prompt: t.Prompt, Age: age(t.StartedAt), Changes: changes})
	}
	return out, nil
}

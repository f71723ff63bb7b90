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
// start is still recorded), newest first, as the turn log gives them
// (turns.Newest), with what each changed from its start to its end. A turn
// without an end (running, or its end never recorded) says so instead of
// counts, and one whose end was pruned shows "?". age says how long ago a
// time was.
func Entries(ctx context.Context, r *git.Runner, j *store.Journal, age func(time.Time) string) ([]Entry, error) {
	es, err := turns.Newest(ctx, r, j, 0)
	if err != nil {
		return nil, err
	}
	out := make([]Entry, 0, len(es))
	for _, e := range es {
		t := e.Turn
		if t.Start == nil {
			continue
		}
		changes := "no end"
		switch {
		case t.End != nil && e.Changes != nil:
			changes = fmt.Sprintf("~%d +%d -%d", e.Changes.Modified, e.Changes.Added, e.Changes.Deleted)
		case t.End != nil:
			changes = "?"
		}
		out = append(out, Entry{ID: t.ID, Prompt: t.Prompt, Age: age(t.StartedAt), Changes: changes})
	}
	return out, nil
}

package remote

import (
	"context"
	"maps"
	"slices"

	"github.com/git-checkpoint/git-checkpoint/internal/git"
)

// Trimmed is what retention removes of one fetched store: the numbers of
// the checkpoints whose refs it deletes, and whether the whole store goes
// (records included), which keep 0 asks for.
type Trimmed struct {
	Store  *Fetched
	Pruned []int
	Gone   bool
}

// Trim keeps the newest keep checkpoints (by number) of each fetched
// store and deletes the refs of the others, in one ref transaction, each
// deletion a compare-and-swap on the commit listed; with keep 0 a store's
// records and transcripts go too, so that nothing of it is left. Their objects are left
// to git gc. A store's pushing machine numbers its checkpoints in the
// order it took them, so the highest numbers are its newest. With dry,
// it only says what it would remove.
func Trim(ctx context.Context, g *git.Runner, stores []*Fetched, keep int, dry bool) ([]Trimmed, error) {
	var out []Trimmed
	var updates []git.RefUpdate
	for _, f := range stores {
		ns := slices.Sorted(maps.Keys(f.Refs))
		if len(ns) <= keep && keep > 0 {
			continue
		}
		t := Trimmed{Store: f, Pruned: ns[:max(len(ns)-keep, 0)], Gone: keep == 0}
		for _, n := range t.Pruned {
			updates = append(updates, git.RefUpdate{Ref: CheckpointRef(f.Info.ID, n), Old: f.Refs[n]})
		}
		if t.Gone && f.RecordsOID != "" {
			updates = append(updates, git.RefUpdate{Ref: RecordsRef(f.Info.ID), Old: f.RecordsOID})
		}
		if t.Gone && f.ConversationsOID != "" {
			updates = append(updates, git.RefUpdate{Ref: ConversationsRef(f.Info.ID), Old: f.ConversationsOID})
		}
		out = append(out, t)
	}
	if dry || len(updates) == 0 {
		return out, nil
	}
	if err := g.UpdateRefs(ctx, updates); err != nil {
		return nil, err
	}
	for _, t := range out {
		for _, n := range t.Pruned {
			delete(t.Store.Refs, n)
		}
	}
	return out, nil
}

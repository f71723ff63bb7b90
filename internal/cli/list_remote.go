package cli

import (
	"context"
	"slices"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
	"github.com/git-checkpoint/git-checkpoint/internal/turns"
)

type remoteStoreDoc struct {
	Store       string          `json:"store"`
	Host        string          `json:"host"`
	Worktree    string          `json:"worktree"`
	Checkpoints []*store.Record `json:"checkpoints"`
}

// listRemote lists the fetched stores' checkpoints, each store's newest
// first, with ids that name the store ("1c1aecbe:k3").
func (c *listCmd) listRemote(ctx context.Context, s *session) error {
	stores, err := s.FetchedStores(ctx)
	if err != nil {
		return err
	}
	docs := []remoteStoreDoc{}
	rows := [][]string{{"ID", "HOST", "AGE", "REASON", "TURN", "SESSION", "LABEL"}}
	now := s.sys.Now()
	for _, f := range stores {
		j := f.Journal()
		starts := turns.Starts(j)
		doc := remoteStoreDoc{Store: f.Info.ID, Host: f.Info.Host, Worktree: f.Info.Worktree, Checkpoints: []*store.Record{}}
		// --session is an id or a unique prefix in each store, as here.
		session, err := turns.MatchSession(j, c.Session)
		if err != nil {
			return err
		}
		for _, r := range slices.Backward(j.Checkpoints()) {
			if !f.Refs.Live(r) {
				continue // its ref did not come (pruned there)
			}
			if c.Session != "" && r.Session != session {
				continue
			}
			if !c.All && len(doc.Checkpoints) == c.Count {
				break
			}
			label := fault.Quote(r.Label)
			q := f.Qualify(r)
			if t, ok := starts[r.ID]; ok {
				t.ID = f.Short() + ":" + t.ID
				label = withPrompt(label, q, t)
			}
			doc.Checkpoints = append(doc.Checkpoints, q)
			rows = append(rows, []string{q.ID, f.Info.Host, age(now, r.At), r.Reason, q.Turn, short(r.Session), label})
		}
		docs = append(docs, doc)
	}
	if s.out.json {
		return s.out.JSON(map[string]any{"stores": docs})
	}
	if len(rows) == 1 {
		s.out.Printf("no fetched checkpoints: 'git checkpoint fetch' brings those other stores pushed\n")
		return nil
	}
	s.out.table(rows)
	return nil
}

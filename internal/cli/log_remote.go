package cli

import (
	"context"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/turns"
)

// logRemote prints the log of each fetched store under a line naming it,
// every id qualified with the store ("1c1aecbe:t2"), so that each one
// printed is one rewind, show and diff take.
func (c *logCmd) logRemote(ctx context.Context, s *session) error {
	stores, err := s.FetchedStores(ctx)
	if err != nil {
		return err
	}
	type storeLog struct {
		Store, Host, Worktree string
		Entries               []turns.Entry
	}
	var logs []storeLog
	docs := []map[string]any{}
	for _, f := range stores {
		entries, err := c.entries(ctx, s, f.Journal())
		if err != nil {
			return err
		}
		for i := range entries {
			entries[i] = entries[i].InStore(f.Short())
		}
		logs = append(logs, storeLog{f.Info.ID, f.Info.Host, f.Info.Worktree, entries})
		// The document of `log --json`, with whose store it is.
		doc := turns.Document(entries)
		doc["store"], doc["host"], doc["worktree"] = f.Info.ID, f.Info.Host, f.Info.Worktree
		docs = append(docs, doc)
	}
	if s.out.json {
		return s.out.JSON(map[string]any{"stores": docs})
	}
	if len(logs) == 0 {
		s.out.Printf("no fetched checkpoints: 'git checkpoint fetch' brings those other stores pushed\n")
		return nil
	}
	tables := 0
	for i, d := range logs {
		if i > 0 {
			s.out.Printf("\n")
		}
		s.out.Printf("store %s (%s, %s)\n", d.Store, fault.Quote(d.Host), d.Worktree)
		if len(d.Entries) == 0 {
			s.out.Printf("no turns\n")
			continue
		}
		s.printLog(d.Entries, c.Stat)
		tables++
	}
	if tables > 0 {
		s.out.legend()
	}
	return nil
}

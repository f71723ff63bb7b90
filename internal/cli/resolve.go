package cli

import (
	"context"

	"github.com/git-checkpoint/git-checkpoint/internal/remote"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
	"github.com/git-checkpoint/git-checkpoint/internal/turns"
)

// resolve finds the checkpoint id names: one of this tree's (in j and
// refs), or one of a fetched store's ("1c1aecbe:k3"), with the journal it
// belongs to, so that turns are read from the store that recorded them.
func (s *session) resolve(ctx context.Context, j *store.Journal, refs map[int]string, id string) (*store.Record, *store.Journal, error) {
	if _, _, ok := turns.InStore(id); !ok {
		r, err := turns.Resolve(j, refs, id)
		return r, j, err
	}
	own, err := s.store.ID()
	if err != nil {
		return nil, nil, err
	}
	return remote.Resolve(ctx, s.git, own, id)
}

// resolveRecord is resolve without the journal the checkpoint belongs to.
func (s *session) resolveRecord(ctx context.Context, j *store.Journal, refs map[int]string, id string) (*store.Record, error) {
	r, _, err := s.resolve(ctx, j, refs, id)
	return r, err
}

// fetchedStores reads the stores fetched here, every one but this tree's.
func (s *session) fetchedStores(ctx context.Context) ([]*remote.Fetched, error) {
	own, err := s.store.ID()
	if err != nil {
		return nil, err
	}
	return remote.Stores(ctx, s.git, own)
}

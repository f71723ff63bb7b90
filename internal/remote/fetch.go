package remote

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
	"github.com/git-checkpoint/git-checkpoint/internal/turns"
)

// Fetched is one other store as this repository holds it after a fetch:
// its checkpoint refs (number to commit) and its records.
type Fetched struct {
	Info    Info
	Refs    store.Refs
	Records *Records
	// RecordsOID is the commit of its records ref ("" when it has none).
	RecordsOID string
	// ConversationsOID is the commit of its carried transcripts ("" when
	// it was pushed without --with-conversation).
	ConversationsOID string
}

// Journal is the store's records as a journal, so that what reads this
// store's own (turns, ids) reads it alike.
func (f *Fetched) Journal() *store.Journal { return store.NewJournal(f.Records.Events...) }

// Short is the store id's first eight digits, which ids of its
// checkpoints carry ("1c1aecbe:k3").
func (f *Fetched) Short() string { return f.Info.ID[:8] }

// Fetch brings every store the remote holds, except this one, into the
// same refs here, in one `git fetch`: forced, since a store's records are
// replaced at each of its pushes. This store's own refs there are left out
// by a negative refspec, so a fetch never writes under its id. It returns
// the stores as they are here afterwards.
//
// With prune, the refs here of the stores the remote holds that it no
// longer has (their checkpoints pruned there by `push --prune`) are
// removed too. Only those stores: fetched stores do not remember where
// they came from, so one that this remote does not hold may have come
// from another, and stays.
func Fetch(ctx context.Context, g *git.Runner, own, remote string, prune bool) ([]*Fetched, error) {
	specs := []string{"+" + store.StoresPrefix + "*:" + store.StoresPrefix + "*", "^" + store.StorePrefix(own) + "*"}
	if err := g.Fetch(ctx, remote, specs...); err != nil {
		return nil, reachFailed(err, remote)
	}
	if prune {
		if err := pruneFetched(ctx, g, own, remote); err != nil {
			return nil, err
		}
	}
	return Stores(ctx, g, own)
}

// pruneFetched runs a `git fetch --prune` of each store the remote holds,
// one refspec per store, so that git prunes only under those stores and
// from the very refs it fetched (a push there in between cannot make it
// delete a ref the remote has).
func pruneFetched(ctx context.Context, g *git.Runner, own, remote string) error {
	listed, err := g.LsRemote(ctx, remote, store.StoresPrefix)
	if err != nil {
		return reachFailed(err, remote)
	}
	seen := map[string]bool{}
	var specs []string
	for _, ref := range listed {
		id, _, _ := strings.Cut(strings.TrimPrefix(ref.Name, store.StoresPrefix), "/")
		if store.ValidID(id) && id != own && !seen[id] {
			seen[id] = true
			specs = append(specs, "+"+store.StorePrefix(id)+"*:"+store.StorePrefix(id)+"*")
		}
	}
	if len(specs) == 0 {
		return nil
	}
	if err := g.FetchPrune(ctx, remote, specs...); err != nil {
		return reachFailed(err, remote)
	}
	return nil
}

// Stores lists the stores fetched here (all but own), by id.
func Stores(ctx context.Context, g *git.Runner, own string) ([]*Fetched, error) {
	refs, err := g.ForEachRef(ctx, store.StoresPrefix)
	if err != nil {
		return nil, err
	}
	byID := map[string]*Fetched{}
	records := map[string]string{}
	for _, ref := range refs {
		id, rest, ok := strings.Cut(strings.TrimPrefix(ref.Name, store.StoresPrefix), "/")
		if !ok || !store.ValidID(id) || id == own {
			continue
		}
		f := byID[id]
		if f == nil {
			f = &Fetched{Info: Info{ID: id}, Refs: store.Refs{}, Records: &Records{}}
			byID[id] = f
		}
		switch n := checkpointN(ref.Name, store.StorePrefix(id)); {
		case rest == "records":
			records[id] = ref.OID
		case rest == "conversations":
			f.ConversationsOID = ref.OID
		case n > 0:
			f.Refs[n] = ref.OID
		}
	}
	var out []*Fetched
	for _, id := range slices.Sorted(maps.Keys(byID)) {
		f := byID[id]
		f.RecordsOID = records[id]
		if oid := records[id]; oid != "" {
			r, ok, err := readRecords(ctx, g, oid)
			if err != nil {
				return nil, fault.Wrap(err, fault.FailedGit, "cannot read the records of store %s", id)
			}
			if ok {
				f.Records = r
				f.Info = r.Info
				f.Info.ID = id
			}
		}
		out = append(out, f)
	}
	return out, nil
}

// Qualify is a copy of r, a record of this store, with its ids (its own
// and its turn's) qualified with the store ("1c1aecbe:k3", "1c1aecbe:t2"):
// what is printed of a fetched checkpoint names it, never one of this
// tree's.
func (f *Fetched) Qualify(r *store.Record) *store.Record {
	q := *r
	q.ID = f.Short() + ":" + r.ID
	if r.Turn != "" {
		q.Turn = f.Short() + ":" + r.Turn
	}
	return &q
}

// Find returns the store whose id starts with prefix, and an error when
// none or several do.
func Find(stores []*Fetched, prefix string) (*Fetched, error) {
	var found []*Fetched
	for _, f := range stores {
		if strings.HasPrefix(f.Info.ID, prefix) {
			found = append(found, f)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return nil, fault.New(fault.NotFoundCheckpoint, "no fetched store's id starts with %s", prefix).
			WithHint("'git checkpoint list --remote' lists the fetched stores; 'git checkpoint fetch' brings them")
	}
	return nil, fault.New(fault.InvalidAmbiguousID, "%s starts the ids of %d fetched stores", prefix, len(found)).
		WithHint("give more digits of the store id")
}

// Resolve finds the fetched checkpoint id names ("1c1aecbe:k3"), with
// the journal of its store; its record's ids are then qualified (Qualify).
func Resolve(ctx context.Context, g *git.Runner, own, id string) (*store.Record, *store.Journal, error) {
	f, r, err := find(ctx, g, own, id)
	if err != nil {
		return nil, nil, err
	}
	return f.Qualify(r), f.Journal(), nil
}

// find is the store of fetched checkpoint id and that checkpoint's record
// as the store has it (its own ids).
func find(ctx context.Context, g *git.Runner, own, id string) (*Fetched, *store.Record, error) {
	prefix, rest, ok := turns.InStore(id)
	if !ok {
		return nil, nil, fault.New(fault.InvalidCheckpointID, "%s names no fetched store's checkpoint", fault.Quote(id))
	}
	stores, err := Stores(ctx, g, own)
	if err != nil {
		return nil, nil, err
	}
	f, err := Find(stores, prefix)
	if err != nil {
		return nil, nil, err
	}
	r, err := turns.Resolve(f.Journal(), f.Refs, rest)
	if err != nil {
		return nil, nil, err
	}
	return f, r, nil
}

package remote

import (
	"context"
	"errors"
	"maps"
	"slices"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// Pusher publishes one store.
type Pusher struct {
	Git   *git.Runner
	Store *store.Store
	// Host labels the store for the people who fetch it.
	Host string
}

// PushResult is what a push sent, or would send.
type PushResult struct {
	Remote string
	Store  string
	// Published are the checkpoints whose refs the push created.
	Published []*store.Record
	// Pruned are the numbers of the checkpoints whose refs the push
	// removed there (--prune): pruned here, still there.
	Pruned []int
	// Records counts the checkpoints the published records describe;
	// RecordsChanged says whether they were (or would be) sent.
	Records        int
	RecordsChanged bool
	// Conversations counts the transcripts a push --with-conversation
	// carries; ConversationsChanged says whether they were (or would be)
	// sent.
	Conversations        int
	ConversationsChanged bool
	DryRun               bool
}

// UpToDate says the remote had everything already.
func (r *PushResult) UpToDate() bool {
	return len(r.Published) == 0 && len(r.Pruned) == 0 && !r.RecordsChanged && !r.ConversationsChanged
}

// attempts is how many times a push is tried when another push of the same
// store moved its records first: each try starts from what the remote has
// then.
const attempts = 3

// PushOptions are a push's flags.
type PushOptions struct {
	DryRun bool // list what would be sent; send nothing
	// Prune removes there the refs of this store's checkpoints that are
	// no longer kept here, and their records.
	Prune bool
	// Conversation also carries the transcripts of the agent sessions
	// the published checkpoints belong to (those an agent resumes from a
	// file: Claude Code's), so that the conversation can go on elsewhere.
	Conversation bool
}

// Push publishes the kept checkpoints of j (those whose ref names the
// commit their record names) and their records to remote. What the remote
// has already, at the same commit, is not sent again; checkpoints pruned
// here stay there, with their records, until a push with Prune.
func (p *Pusher) Push(ctx context.Context, j *store.Journal, refs map[int]string, remote string, opts PushOptions) (*PushResult, error) {
	id, err := p.Store.EnsureID()
	if err != nil {
		return nil, err
	}
	for try := 1; ; try++ {
		res, updates, err := p.plan(ctx, j, refs, remote, id, opts)
		if err != nil {
			return nil, err
		}
		res.DryRun = opts.DryRun
		if opts.DryRun || len(updates) == 0 {
			return res, nil
		}
		err = p.Git.Push(ctx, git.PushRequest{Remote: remote, Updates: updates})
		if err == nil {
			return res, nil
		}
		if try == attempts || !stale(err) {
			return nil, pushFailed(err, remote)
		}
	}
}

// plan compares this store with what the remote has of it and returns
// the updates that bring the remote up to date, each one a
// compare-and-swap against what ls-remote saw. With prune, the refs there
// of checkpoints no longer kept here are deleted, each only while it is
// still at the commit seen.
func (p *Pusher) plan(ctx context.Context, j *store.Journal, refs map[int]string, remote, id string, opts PushOptions) (*PushResult, []git.PushUpdate, error) {
	prefix := store.StorePrefix(id)
	listed, err := p.Git.LsRemote(ctx, remote, prefix)
	if err != nil {
		return nil, nil, reachFailed(err, remote)
	}
	there := map[int]string{}
	oldRecords, oldConversations := "", ""
	for _, ref := range listed {
		if ref.Name == ConversationsRef(id) {
			oldConversations = ref.OID
		} else if ref.Name == RecordsRef(id) {
			oldRecords = ref.OID
		} else if n := checkpointN(ref.Name, prefix); n > 0 {
			there[n] = ref.OID
		}
	}
	old := &Records{}
	if oldRecords != "" {
		if old, err = p.remoteRecords(ctx, remote, id, oldRecords); err != nil {
			return nil, nil, err
		}
	}

	res := &PushResult{Remote: remote, Store: id}
	var updates []git.PushUpdate
	kept := map[int]bool{}
	for _, r := range j.Checkpoints() {
		if refs[r.N] != r.Commit {
			continue // its ref is gone or moved: not a checkpoint to publish
		}
		kept[r.N] = true
		switch there[r.N] {
		case r.Commit:
		case "":
			res.Published = append(res.Published, r)
			updates = append(updates, git.PushUpdate{Ref: CheckpointRef(id, r.N), New: r.Commit})
		default:
			return nil, nil, fault.New(fault.ConflictStoreShared, "%s holds checkpoint k%d of store %s at another commit than this one", remote, r.N, id).
				WithHint("another working tree has this store's id (its state directory was copied); remove 'store-id' from the state directory of one of them to give it an id of its own")
		}
	}

	if opts.Prune {
		for _, n := range slices.Sorted(maps.Keys(there)) {
			if !kept[n] {
				res.Pruned = append(res.Pruned, n)
				updates = append(updates, git.PushUpdate{Ref: CheckpointRef(id, n), Old: there[n]})
				delete(there, n)
			}
		}
	}

	// The records: what the remote had of checkpoints still there but no
	// longer kept here, then this store's events of the kept ones.
	recs := &Records{Info: Info{Format: Format, ID: id, Host: p.Host, Worktree: p.Store.Worktree}}
	for _, ev := range old.Events {
		if n := ev.Checkpoint.N; !kept[n] && there[n] != "" {
			recs.Events = append(recs.Events, ev)
		}
	}
	for _, ev := range j.All() {
		if ev.Type == store.EventCheckpoint && ev.Checkpoint != nil && kept[ev.Checkpoint.N] {
			recs.Events = append(recs.Events, ev)
		}
	}
	res.Records = len(recs.Numbers())
	res.RecordsChanged = oldRecords == "" || !same(old, recs)
	if opts.Conversation {
		commit, n, err := writeConversations(ctx, p.Git, j, kept, id)
		if err != nil {
			return nil, nil, err
		}
		res.Conversations = n
		if commit != "" && commit != oldConversations {
			res.ConversationsChanged = true
			updates = append(updates, git.PushUpdate{Ref: ConversationsRef(id), New: commit, Old: oldConversations})
		}
	}
	if !res.RecordsChanged && len(updates) == 0 {
		return res, nil, nil
	}
	// The records' parents are the kept checkpoints they name, which
	// git then counts as the edges of what it sends: a new checkpoint's
	// objects are compared with those of the checkpoints the remote has,
	// not only with HEAD's, so the files an earlier push sent are not sent
	// again.
	var parents []string
	for _, r := range j.Checkpoints() {
		if kept[r.N] {
			parents = append(parents, r.Commit)
		}
	}
	commit, err := recs.write(ctx, p.Git, parents)
	if err != nil {
		return nil, nil, err
	}
	updates = append(updates, git.PushUpdate{Ref: RecordsRef(id), New: commit, Old: oldRecords})
	return res, updates, nil
}

// remoteRecords reads the remote's records commit oid of store id: from
// here when this repository has it (it made it, at an earlier push),
// else fetched without a ref.
func (p *Pusher) remoteRecords(ctx context.Context, remote, id, oid string) (*Records, error) {
	r, ok, err := readRecords(ctx, p.Git, oid)
	if err == nil && !ok {
		if err = p.Git.Fetch(ctx, remote, RecordsRef(id)); err != nil {
			return nil, reachFailed(err, remote)
		}
		r, ok, err = readRecords(ctx, p.Git, oid)
	}
	if err == nil && !ok {
		err = errors.New("fetched, but still not here")
	}
	if err != nil {
		return nil, fault.Wrap(err, fault.FailedGit, "cannot read the records %s holds of store %s", remote, id)
	}
	return r, nil
}

// same reports whether two records hold the same bytes.
func same(a, b *Records) bool {
	ai, ar, err1 := a.encode()
	bi, br, err2 := b.encode()
	return err1 == nil && err2 == nil && slices.Equal(ai, bi) && slices.Equal(ar, br)
}

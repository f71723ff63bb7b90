package remote

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/secrets"
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
	// Screen is what the secret scan of the published checkpoints'
	// new files found, and Redacted the findings replaced by a marker in
	// the transcripts carried.
	Screen   *Screen
	Redacted []Secret
	DryRun   bool
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
	// Scanner scans what the push would publish for the first time;
	// without one nothing is published.
	Scanner secrets.Scanner
	// Withhold are paths (files or directories) left out of the copies
	// of the checkpoints the push publishes; Allow are flagged paths
	// published anyway. A flagged path in neither refuses the push.
	Withhold, Allow []string
}

// Push publishes the kept checkpoints of j (those whose ref names the
// commit their record names) and their records to remote. What the remote
// has already, at the same commit, is not sent again; checkpoints pruned
// here stay there, with their records, until a push with Prune.
func (p *Pusher) Push(ctx context.Context, j *store.Journal, refs store.Refs, remote string, opts PushOptions) (*PushResult, error) {
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
func (p *Pusher) plan(ctx context.Context, j *store.Journal, refs store.Refs, remote, id string, opts PushOptions) (*PushResult, []git.PushUpdate, error) {
	prefix := store.StorePrefix(id)
	// Every ref of the remote, in the one round trip: this store's, and
	// the commits whose files the remote holds already, which the scan
	// of what is new leaves out.
	listed, err := p.Git.LsRemote(ctx, remote, "refs/")
	if err != nil {
		return nil, nil, reachFailed(err, remote)
	}
	there := store.Refs{}
	oldRecords, oldConversations := "", ""
	for _, ref := range listed {
		if !strings.HasPrefix(ref.Name, prefix) {
			continue
		}
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

	// The copies an earlier push published of checkpoints it withheld
	// paths from: the remote's ref names the copy, not this store's.
	copies := map[int]*store.Record{}
	for _, ev := range old.Events {
		if c := ev.Checkpoint; c != nil && !c.Reused && withheld(c) {
			copies[c.N] = c
		}
	}

	res := &PushResult{Remote: remote, Store: id}
	var updates []git.PushUpdate
	kept := map[int]bool{}
	pub := map[int]*store.Record{} // checkpoint: the copy the remote has, or gets
	for _, r := range j.Checkpoints() {
		if !refs.Live(r) {
			continue // its ref is gone or moved: not a checkpoint to publish
		}
		kept[r.N] = true
		switch c := copies[r.N]; {
		case there.Live(r):
		case there[r.N] == "":
			res.Published = append(res.Published, r)
		case c != nil && c.Commit == there[r.N]:
			pub[r.N] = c
		default:
			return nil, nil, fault.New(fault.ConflictStoreShared, "%s holds checkpoint k%d of store %s at another commit than this one", remote, r.N, id).
				WithHint("another working tree has this store's id (its state directory was copied); remove 'store-id' from the state directory of one of them to give it an id of its own")
		}
	}

	if res.Screen, err = p.screen(ctx, res.Published, listed, opts); err != nil {
		return nil, nil, err
	}
	if len(res.Screen.Blocking) > 0 && !opts.DryRun {
		return nil, nil, secretsFound(res.Screen, remote)
	}
	for _, r := range res.Published {
		if paths := res.Screen.Withheld[r.N]; len(paths) > 0 {
			if pub[r.N], err = p.withhold(ctx, r, paths); err != nil {
				return nil, nil, err
			}
		}
		updates = append(updates, git.PushUpdate{Ref: CheckpointRef(id, r.N), New: published(r, pub).Commit})
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
			if c := pub[ev.Checkpoint.N]; c != nil {
				r := *ev.Checkpoint
				r.Commit, r.Tree, r.Raw, r.Skipped = c.Commit, c.Tree, c.Raw, c.Skipped
				ev.Checkpoint = &r
			}
			recs.Events = append(recs.Events, ev)
		}
	}
	res.Records = len(recs.Numbers())
	res.RecordsChanged = oldRecords == "" || !same(old, recs)
	if opts.Conversation {
		commit, n, redacted, err := writeConversations(ctx, p.Git, j, kept, id, opts.Scanner)
		if err != nil {
			return nil, nil, err
		}
		res.Conversations, res.Redacted = n, redacted
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
	// again. They are the copies the remote has, never a checkpoint
	// whose paths were withheld.
	var parents []string
	for _, r := range j.Checkpoints() {
		if kept[r.N] {
			parents = append(parents, published(r, pub).Commit)
		}
	}
	commit, err := recs.write(ctx, p.Git, parents)
	if err != nil {
		return nil, nil, err
	}
	updates = append(updates, git.PushUpdate{Ref: RecordsRef(id), New: commit, Old: oldRecords})
	return res, updates, nil
}

// published is the copy of r the remote has or gets: r itself, unless
// paths were withheld from it.
func published(r *store.Record, pub map[int]*store.Record) *store.Record {
	if c := pub[r.N]; c != nil {
		return c
	}
	return r
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

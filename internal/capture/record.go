package capture

import (
	"bytes"
	"context"
	"strconv"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/gitformat"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// Options describe why a checkpoint is taken and by whom.
type Options struct {
	Reason, Label              string
	Turn, Session, Agent, Tool string
	Paths                      []string // paths the agent's event named
	Transcript, TranscriptAt   string
	Prompt                     string // the turn's prompt, cut (store.CutPrompt)
	// MCPRewind is checkpoint.mcpRewind at a turn's start or end
	// (store.Record.MCPRewind).
	MCPRewind *bool
	NoDedup   bool // safety checkpoints are never deduped
	// Index, when set, is a tree (the real index before --reset-head
	// resets it) that the checkpoint keeps reachable, through an extra
	// parent commit holding it.
	Index string
	// Only makes a per-tool capture cheap: the paths a tool call changed
	// (absolute, or from the top of the tree). When it names 1 to MaxOnly
	// paths, only those are brought up to date and the checkpoint is
	// recorded as partial (see SnapshotPaths); otherwise, or when a path
	// needs it, the whole tree is scanned. Turn-boundary captures leave
	// it empty: they always scan the whole tree.
	Only []string
	// Prehash holds Only's files hashed before the store lock was taken
	// (Capturer.Prehash), or nil.
	Prehash *Prehash `json:"-"`
}

// fewOnly reports whether Only names the 1 to MaxOnly paths that make a
// capture partial.
func (o Options) fewOnly() bool { return len(o.Only) > 0 && len(o.Only) <= MaxOnly }

// Groupable reports whether a group (CaptureGroup) may take the capture:
// a per-tool one of a few named paths.
func (o Options) Groupable() bool { return o.Reason == store.ReasonTool && o.fewOnly() }

// Capture takes a checkpoint: a snapshot, then a commit and a ref unless the
// tree and HEAD equal the newest checkpoint's, in which case the reuse is
// recorded (a turn boundary still happened) and no ref is made.
func (c *Capturer) Capture(ctx context.Context, j *store.Journal, opts Options) (*store.Record, error) {
	started := time.Now()
	var snap *Snapshot
	var err error
	// A checkpoint asked for fails over checkpoint.maxTotalBytes (budget).
	if opts.fewOnly() {
		snap, err = c.snapshotPaths(ctx, j, opts.Only, nil, opts.Prehash, budget{strict: true})
	} else {
		snap, err = c.snapshot(ctx, j, budget{strict: true})
	}
	if err == nil {
		var rec *store.Record
		if rec, err = c.Record(ctx, j, snap, opts); err == nil {
			c.PackIfDue(ctx, rec)
			return rec, nil
		}
	}
	if fault.NoSpace(err) {
		c.dropTempObjects(started)
	}
	return nil, err
}

// Record turns a snapshot into a checkpoint: Commit, the sync of what it
// wrote when it made a ref (Store.SyncRefs), then the journal line
// (Enter). The caller holds the lock.
func (c *Capturer) Record(ctx context.Context, j *store.Journal, snap *Snapshot, opts Options) (*store.Record, error) {
	rec, err := c.Commit(ctx, j, snap, opts)
	if err != nil {
		return nil, err
	}
	if !rec.Reused {
		if err := c.Store.SyncRefs(); err != nil {
			return nil, err
		}
	}
	return rec, c.Enter(j, rec)
}

// Enter journals the checkpoint Commit made, which is on disk: a reuse
// record, or a new checkpoint after the sync of what was written
// (Store.SyncRefs).
func (c *Capturer) Enter(j *store.Journal, rec *store.Record) error {
	return c.Store.Append(j, store.Event{Type: store.EventCheckpoint, At: rec.At, Checkpoint: rec})
}

// Commit makes the checkpoint of a snapshot, its commit and its ref, unless
// the tree and HEAD equal the newest checkpoint's: then the record it
// returns is a reuse of that one (Reused), and nothing is written. It
// neither syncs nor journals: Record does both, and a rewind syncs its
// own writes with them (rewind.Apply). The caller holds the lock.
func (c *Capturer) Commit(ctx context.Context, j *store.Journal, snap *Snapshot, opts Options) (*store.Record, error) {
	// The snapshot's objects and state are on disk before its commit.
	if err := c.Git.Aside.Settle(); err != nil {
		return nil, fault.Wrap(err, fault.As(err).Code, "cannot write the snapshot's objects")
	}
	if err := c.Fail.At("saved"); err != nil {
		return nil, err
	}
	sealed := c.sealed
	if c.sealed = nil; sealed != nil && sealed.err != nil {
		sealed = nil
	}
	last := j.Latest()
	var err error
	rec := c.newRecord(snap, opts)
	if !opts.NoDedup && last != nil && last.Holds(snap.Tree, snap.Raw) && last.Head == c.Repo.Head &&
		last.Branch == c.Repo.Branch {
		rec.ID, rec.N, rec.Commit, rec.Reused = last.ID, last.N, last.Commit, true
		return rec, nil
	}
	switch {
	case snap.Known:
		rec.Changes = snap.Changes
	case last != nil:
		if rec.Changes, err = c.countChanges(ctx, last.Tree, snap.Tree); err != nil {
			return nil, err
		}
	default:
		// The first checkpoint counts what changed since the last commit
		// (everything, with no commit yet).
		from := c.Repo.Head
		if from == "" {
			from = gitformat.EmptyTree(len(snap.Tree))
		}
		if rec.Changes, err = c.countChanges(ctx, from, snap.Tree); err != nil {
			return nil, err
		}
	}
	rec.Previous = previous(last)
	parents := c.headParents()
	if last == nil || last.Head != c.Repo.Head {
		// HEAD, a parent, is new since the last checkpoint: a commit of
		// the person's git, whose default core.fsync syncs no loose
		// object. The sync after this checkpoint is the filesystem's,
		// which makes it durable with the checkpoint that names it.
		c.Git.Written.Anywhere("HEAD moved since the last checkpoint")
	}
	// Extra parents keep trees the checkpoint needs reachable: the raw
	// overlay, and the index before a --reset-head.
	for _, extra := range []*store.Record{
		{ID: "raw", Tree: snap.Raw, Reason: "raw", Label: "files kept byte for byte"},
		{ID: "index", Tree: opts.Index, Reason: "index", Label: "the index before the rewind"},
	} {
		if extra.Tree == "" {
			continue
		}
		commit, err := c.commitTree(ctx, extra, nil, nil)
		if err != nil {
			return nil, err
		}
		parents = append(parents, commit)
	}
	if g := c.group; g != nil {
		// The group's refs are created together, after its pack: a ref
		// that exists already fails them all, and each hook then takes
		// its own checkpoint, adopting it.
		rec.N = c.Store.NextN(j)
		rec.ID = "k" + strconv.Itoa(rec.N)
		if rec.Commit, err = c.commitTree(ctx, rec, parents, nil); err != nil {
			return nil, err
		}
		g.refs = append(g.refs, git.RefUpdate{Ref: c.Store.Ref(rec.N), New: rec.Commit, Create: true, NoDeref: true})
		return rec, nil
	}
	for attempt := 0; ; attempt++ {
		rec.N = c.Store.NextN(j)
		rec.ID = "k" + strconv.Itoa(rec.N)
		if rec.Commit, err = c.commitTree(ctx, rec, parents, sealed); err != nil {
			return nil, err
		}
		err = c.Store.CreateRef(ctx, rec.N, rec.Commit)
		if err == nil {
			break
		}
		if attempt > 0 {
			return nil, err
		}
		// The ref exists: an earlier run died between ref and journal.
		// Adopt what the refs hold and take the next free number.
		refs, rerr := c.Store.Refs(ctx)
		if rerr != nil {
			return nil, err
		}
		if _, aerr := c.Store.Adopt(ctx, j, refs); aerr != nil {
			return nil, aerr
		}
	}
	if err := c.Fail.At("ref"); err != nil {
		return nil, err
	}
	return rec, nil
}

// newRecord is the record of the checkpoint of snap that opts describe,
// before its number, its comparison with the one before and its commit.
// It is where what people and models typed is cut to the journal's size
// (store.CutPrompt), whoever passed it: -m, run, a hook, MCP.
func (c *Capturer) newRecord(snap *Snapshot, opts Options) *store.Record {
	rec := &store.Record{
		Tree: snap.Tree, Head: c.Repo.Head, Branch: c.Repo.Branch,
		Reason: opts.Reason, Label: store.CutPrompt(opts.Label), Turn: opts.Turn,
		Session: opts.Session, Agent: opts.Agent, Tool: opts.Tool, Paths: opts.Paths,
		Skipped: snap.Skipped, Submodules: snap.Submodules,
		Transcript: opts.Transcript, TranscriptAt: opts.TranscriptAt, Prompt: store.CutPrompt(opts.Prompt),
		MCPRewind: opts.MCPRewind,
		At:        c.Store.Now().UTC(), Raw: snap.Raw, Partial: snap.Partial,
		Verbatim: true, // raw.go: the overlay holds every file whose blob is not its bytes
	}
	if rec.Skipped == nil {
		rec.Skipped = []store.Skip{}
	}
	return rec
}

// previous names the checkpoint before a new one, in its Previous
// trailer: HEAD is a parent (it records HEAD and keeps an agent's commits
// reachable after --reset-head); the previous checkpoint is not, because
// a parent link would keep every pruned checkpoint reachable from the
// newest and gc could never free them.
func previous(last *store.Record) string {
	if last == nil {
		return ""
	}
	return last.ID + " " + last.Commit
}

// headParents are a checkpoint's parents before any extra one: HEAD,
// unless the branch is unborn.
func (c *Capturer) headParents() []string {
	if c.Repo.Head == "" {
		return nil
	}
	return []string{c.Repo.Head}
}

// commitBody is the commit CommitTree writes for req, by the tool
// (git.Identity, which every checkpoint commit has), at the time at: the
// body a capture hashes and stores itself.
func commitBody(req git.CommitRequest, at time.Time) []byte {
	return gitformat.Commit{Tree: req.Tree, Parents: req.Parents, Who: git.Who, At: at, Message: req.Message}.Body()
}

// commitTree writes rec's commit, or finds it written already: in the
// group's pack, or made ahead (sealed) when that is, byte for byte, the
// commit rec would have at the time it was made; rec is then dated so.
func (c *Capturer) commitTree(ctx context.Context, rec *store.Record, parents []string, sealed *sealedCommit) (string, error) {
	req := git.CommitRequest{Tree: rec.Tree, Parents: parents, Message: store.Message(rec), Env: git.Identity}
	if sealed != nil && bytes.Equal(commitBody(req, sealed.at), sealed.body) {
		rec.At = sealed.at
		return sealed.id, nil
	}
	if c.group != nil {
		at := rec.At
		if at.IsZero() { // an extra parent's (Commit)
			at = c.Store.Now()
		}
		return c.group.commit(req, at), nil
	}
	return c.Git.CommitTree(ctx, req)
}

// countChanges compares two trees by name and status. The same tree twice
// (a new checkpoint only because HEAD moved) needs no git to say so.
func (c *Capturer) countChanges(ctx context.Context, from, to string) (store.Changes, error) {
	if from == to {
		return store.Changes{}, nil
	}
	diff, err := c.Git.DiffTree(ctx, from, to, git.DiffTreeOptions{Format: git.DiffNameStatus})
	if err != nil {
		return store.Changes{}, fault.Wrap(err, fault.FailedGit, "cannot compare checkpoints")
	}
	return store.Count(diff), nil
}

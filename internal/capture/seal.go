package capture

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/gitformat"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// A rewind's safety checkpoint is the snapshot its scan takes, whose new
// blobs and trees the scan packs aside (git.Runner.WritePack) while the
// rewind plans and stages (WriteAside). Its commit was then one more
// process, commit-tree, started only once git had the trees, on the path
// that every write to the tree waits for (docs/speed.md, "The rewind's
// commits made ahead"). A capturer given Seal makes that commit itself
// when the scan knows its tree, as Commit would make it, and puts it in
// the same pack; Commit then finds it made, and only its ref is left to
// create.
//
// What is sealed is a guess Commit checks, not a promise: Commit builds
// the commit as always and takes the sealed one only when it is the same
// commit byte for byte (tree, parents, message, time). Anything that
// changed in between (a raw overlay the scan found after, the number of
// another checkpoint, the index a --reset-head keeps) makes it write its
// own, and the sealed one stays an unreachable object that gc removes.

// sealedCommit is a commit made before its checkpoint (Capturer.seal,
// Capturer.SealAhead).
type sealedCommit struct {
	at   time.Time // the checkpoint's time, which the commit's dates give
	n    int       // the checkpoint's number
	id   string
	body []byte
	// err is why the commit could not be written; set before the work
	// aside that writes it ends, and read after Settle.
	err error
}

// seal makes the commit of the checkpoint a snapshot of tree would
// become with Seal's options and keeps it for Commit. It returns the
// commit for the scan's pack, or nothing when Seal cannot say yet or the
// checkpoint needs a commit of its own for an extra parent.
func (c *Capturer) seal(j *store.Journal, tree string) []git.Object {
	c.sealed, c.next = nil, nil
	if c.Seal == nil {
		return nil
	}
	opts, ok := c.Seal(tree)
	if !ok {
		return nil
	}
	if c.sealed = c.nextAhead(j, tree, opts, time.Time{}); c.sealed == nil {
		return nil
	}
	objs := []git.Object{{ID: c.sealed.id, Type: "commit", Body: c.sealed.body}}
	if c.SealNext == nil {
		return objs
	}
	if next, nextOpts, ok := c.SealNext(tree); ok {
		if c.next = c.commitAhead(next, nextOpts, c.sealed.n+1, c.sealed.ref(), c.sealed.at); c.next != nil {
			objs = append(objs, git.Object{ID: c.next.id, Type: "commit", Body: c.next.body})
		}
	}
	return objs
}

// sealWritten is seal for a snapshot whose commit the scan did not put
// in its pack (it wrote no pack: nothing new since the last scan, or
// more than a partial update; Seal said nothing then): its tree is in git
// or on its way there, so its commit is written aside (SealAhead), while
// the rewind plans.
func (c *Capturer) sealWritten(ctx context.Context, j *store.Journal, snap *Snapshot) {
	if c.Seal == nil || c.sealed != nil || snap.Raw != "" {
		return
	}
	if opts, ok := c.Seal(snap.Tree); ok {
		c.SealAhead(ctx, j, snap.Tree, opts)
	}
}

// SealAhead writes aside (git.Aside) the commit of the checkpoint that a
// snapshot of tree, with no raw overlay, would become with opts, for the
// next Commit to take if it is the one it would make: a rewind knows the
// tree its writes will leave (its target's), and has git write the
// commit of the checkpoint after it while it writes the files, where
// commit-tree waited for the files and their check. The
// checkpoint is then dated when its writes began.
//
// When the scan's pack holds that commit already (SealNext), it is taken
// as it is: no process writes it, and the checkpoint is dated as the one
// before it, when the scan ended.
func (c *Capturer) SealAhead(ctx context.Context, j *store.Journal, tree string, opts Options) {
	if n := c.next; n != nil {
		c.next = nil
		if s := c.nextAhead(j, tree, opts, n.at); s != nil && s.id == n.id {
			c.sealed = n
			return
		}
	}
	if c.Git.Aside == nil {
		return // nothing runs aside here: Commit writes the commit itself
	}
	s := c.nextAhead(j, tree, opts, time.Time{})
	if s == nil {
		return
	}
	c.sealed = s
	c.Git.Aside.Go(func() error {
		// Older: it is the work aside, which no git process of its own may
		// wait for; and its commit's tree and parent are in git already.
		err := c.Fail.At("ahead")
		if err == nil {
			var out []byte
			out, err = c.Git.Run(ctx, git.Cmd{Args: []string{"hash-object", "-t", "commit", "-w", "--stdin"}, Stdin: s.body, Older: true})
			if got := strings.TrimSpace(string(out)); err == nil && got != s.id {
				err = fault.New(fault.FailedInternal, "git hash-object wrote commit %s, expected %s", got, s.id)
			}
		}
		// A commit not written is one Commit writes itself: nothing else
		// waits on it, so its failure is not the work aside's.
		s.err = err
		return nil
	})
}

// commitAhead is the commit checkpoint n, a snapshot of tree with opts
// naming previous as the one before it, would have as Commit would make
// it, dated at (now, when zero); nil when the checkpoint needs a commit
// of its own for an extra parent (the index a move of HEAD keeps), or
// while a group collects its captures' commits itself.
func (c *Capturer) commitAhead(tree string, opts Options, n int, previous string, at time.Time) *sealedCommit {
	if opts.Index != "" || c.group != nil {
		return nil
	}
	rec := c.newRecord(&Snapshot{Tree: tree}, opts)
	if !at.IsZero() {
		rec.At = at
	}
	rec.N, rec.ID, rec.Previous = n, "k"+strconv.Itoa(n), previous
	return sealedOf(rec, tree, c.headParents())
}

// nextAhead is commitAhead of the checkpoint after j's newest, dated at.
func (c *Capturer) nextAhead(j *store.Journal, tree string, opts Options, at time.Time) *sealedCommit {
	return c.commitAhead(tree, opts, j.MaxN()+1, previous(j.Latest()), at)
}

// ref is how the checkpoint after s names it (Record.Previous).
func (s *sealedCommit) ref() string { return "k" + strconv.Itoa(s.n) + " " + s.id }

// sealedOf is the commit rec, of tree, would have with parents.
func sealedOf(rec *store.Record, tree string, parents []string) *sealedCommit {
	body := commitBody(git.CommitRequest{Tree: tree, Parents: parents, Message: store.Message(rec)}, rec.At)
	return &sealedCommit{at: rec.At, n: rec.N, id: gitformat.ID("commit", body, len(tree)), body: body}
}

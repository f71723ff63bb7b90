package rewind

import (
	"context"
	"os"
	"strconv"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// HeadMove is what --reset-head (or the --undo of such a rewind) does to
// HEAD and the real index (DESIGN 6.6).
type HeadMove struct {
	Ref      string   // refs/heads/<branch>, or HEAD when detached
	From, To string   // commits
	Dropped  []string // commits the ref stops reaching (the safety checkpoint keeps them)
	Index    string   // tree of the real index now, kept by the safety checkpoint
	// ResetTo is the tree the index is reset to: the new HEAD's, or for an
	// --undo the index as it was before the rewind.
	ResetTo string
	Undo    bool
}

// planHeadMove runs the --reset-head preflight: HEAD goes back to the
// target's HEAD only along the branch it was on (the target's HEAD is an
// ancestor of HEAD, else conflict.head_moved), and never drops a commit a
// remote-tracking ref holds (conflict.commits_pushed): moving a pushed
// branch back would make the next push a force push. It returns nil when
// HEAD already is the target's.
func (r *Rewinder) planHeadMove(ctx context.Context, target *store.Record) (*HeadMove, error) {
	head, branch := r.Repo.Head, r.Repo.Branch
	moved := func(format string, args ...any) error {
		return fault.New(fault.ConflictHeadMoved, format, args...).
			WithHint("rewind without --reset-head to restore the files and leave HEAD where it is").
			WithData(map[string]string{"head": head, "branch": branch, "target_head": target.Head, "target_branch": target.Branch})
	}
	switch {
	case target.Head == "":
		return nil, moved("%s was taken before the first commit: there is no HEAD to go back to", target.ID)
	case head == "":
		return nil, moved("HEAD has no commit now, while %s was taken at %s", target.ID, fault.Short(target.Head))
	case target.Branch != branch:
		return nil, moved("%s was taken %s, and HEAD is now %s", target.ID, onBranch(target.Branch), onBranch(branch))
	case target.Head == head:
		return nil, nil
	}
	_, err := r.Git.Run(ctx, git.Cmd{Args: []string{"merge-base", "--is-ancestor", target.Head, head}})
	switch code := git.ExitCode(err); {
	case err == nil:
	case code == 1 || code == 128:
		return nil, moved("HEAD is not a descendant of %s's HEAD %s (history was rewritten, or the commit is gone)", target.ID, fault.Short(target.Head))
	default:
		return nil, err
	}
	dropped, err := r.revList(ctx, target.Head+".."+head)
	if err != nil {
		return nil, err
	}
	unpushed, err := r.revList(ctx, target.Head+".."+head, "--not", "--remotes")
	if err != nil {
		return nil, err
	}
	if len(unpushed) < len(dropped) {
		local := map[string]bool{}
		for _, c := range unpushed {
			local[c] = true
		}
		var pushed []string
		for _, c := range dropped {
			if !local[c] {
				pushed = append(pushed, c)
			}
		}
		where := "a remote-tracking ref"
		if out, err := r.Git.Run(ctx, git.Cmd{Args: []string{"for-each-ref", "--count=1", "--format=%(refname:short)", "--contains", pushed[0], "refs/remotes/"}}); err == nil && len(strings.TrimSpace(string(out))) > 0 {
			where = strings.TrimSpace(string(out))
		}
		return nil, fault.New(fault.ConflictCommitsPushed, "%d of the %d commits --reset-head would drop %s on %s: moving the branch back would make the next push a force push",
			len(pushed), len(dropped), fault.Plural(len(pushed), "is already", "are already"), where).
			WithHint("rewind without --reset-head to restore the files and keep the commits, then revert them with new commits").
			WithData(map[string]any{"commits": pushed, "remote_ref": where})
	}
	ref := branch
	if ref == "" {
		ref = "HEAD"
	}
	return &HeadMove{Ref: ref, From: head, To: target.Head, Dropped: dropped, ResetTo: target.Head}, nil
}

// undoHeadMove is the way back of a rewind that moved HEAD: when HEAD is
// still where that rewind put it, it goes back, and the index is reset to
// what it held before. A rewind killed before it moved HEAD has nothing to
// undo there; HEAD moved since by someone else refuses.
func (r *Rewinder) undoHeadMove(rw *store.Rewind) (*HeadMove, error) {
	if rw.HeadRef == "" {
		return nil, nil
	}
	ref := r.Repo.Branch
	if ref == "" {
		ref = "HEAD"
	}
	switch {
	case ref == rw.HeadRef && r.Repo.Head == rw.HeadFrom:
		return nil, nil // killed before HEAD moved
	case ref != rw.HeadRef || r.Repo.Head != rw.HeadTo:
		return nil, fault.New(fault.ConflictHeadMoved, "HEAD moved since the rewind to %s reset it, so --undo cannot put it back", rw.Target).
			WithHint("restore the files alone with 'git rewind " + rw.Safety + "'; the commits HEAD was on are " + fault.Short(rw.HeadFrom) + " and its ancestors").
			WithData(map[string]string{"head": r.Repo.Head, "expected": rw.HeadTo})
	}
	return &HeadMove{Ref: rw.HeadRef, From: rw.HeadTo, To: rw.HeadFrom, ResetTo: rw.Index, Undo: true}, nil
}

// revList lists commits, newest first.
func (r *Rewinder) revList(ctx context.Context, args ...string) ([]string, error) {
	out, err := r.Git.Run(ctx, git.Cmd{Args: append([]string{"rev-list"}, args...)})
	if err != nil {
		return nil, err
	}
	return strings.Fields(string(out)), nil
}

// saveIndex writes the tree of the real index, through a copy so that the
// real index is not rewritten (write-tree would store its cache tree in
// it) before the rewind is sure to run. An index with unresolved
// conflicts has no tree: that is conflict.git_operation.
func (r *Rewinder) saveIndex(ctx context.Context) (string, error) {
	if err := r.Store.Init(); err != nil {
		return "", err
	}
	data, err := os.ReadFile(r.Repo.Index)
	if os.IsNotExist(err) {
		return r.Git.WriteEmptyTree(ctx)
	}
	if err != nil {
		return "", fault.Wrap(err, fault.FailedIO, "cannot read the index")
	}
	copyPath := r.Store.ResetIndex()
	defer os.Remove(copyPath)
	if err := os.WriteFile(copyPath, data, 0o644); err != nil {
		return "", fault.Wrap(err, fault.FailedIO, "cannot copy the index")
	}
	tree, err := r.Git.WriteTree(ctx, copyPath)
	if err != nil {
		return "", fault.Wrap(err, fault.ConflictGitOperation, "the index has unresolved conflicts, so --reset-head cannot save it").
			WithHint("resolve them (git add / git rm) or drop them, then rewind again")
	}
	return tree, nil
}

// moveHead moves the ref with a compare-and-swap update-ref (it fails if
// the ref moved since the preflight) and a reflog entry, then resets the
// real index with `read-tree --reset`: entries whose content is unchanged
// keep their stat data, so the next git status re-reads only the files
// that differ, not the whole tree (a plain read-tree would drop every
// entry's stat data). A refresh then records the stat data of the files
// the rewind wrote. If the index cannot be reset, the ref goes back.
func (r *Rewinder) moveHead(ctx context.Context, m *HeadMove, reason string) error {
	update := func(to, from string) error {
		return r.Git.UpdateRef(ctx, git.RefUpdate{Ref: m.Ref, New: to, Old: from, Reason: reason,
			CreateReflog: true, NoDeref: m.Ref == "HEAD"})
	}
	if err := update(m.To, m.From); err != nil {
		return fault.Wrap(err, fault.ConflictHeadMoved, "cannot move %s: it moved during the rewind", m.Ref)
	}
	if err := r.Fail.At("head"); err != nil {
		update(m.From, m.To)
		return err
	}
	if _, err := r.Git.Run(ctx, git.Cmd{Args: []string{"read-tree", "--reset", m.ResetTo}}); err != nil {
		update(m.From, m.To)
		return fault.Wrap(err, fault.FailedGit, "cannot reset the index")
	}
	if err := r.Fail.At("index"); err != nil {
		return err
	}
	// --refresh exits 1 when files differ from the index, which after a
	// rewind with uncommitted changes they do.
	r.Git.Run(ctx, git.Cmd{Args: []string{"update-index", "-q", "--refresh"}})
	return nil
}

// headCommits counts the commits from has that to lacks; 0 when they
// cannot be counted (the old HEAD may be gone: the count is best effort).
func (r *Rewinder) headCommits(ctx context.Context, to, from string) int {
	out, err := r.Git.Run(ctx, git.Cmd{Args: []string{"rev-list", "--count", to + ".." + from}})
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	return n
}

func onBranch(ref string) string {
	if ref == "" {
		return "detached"
	}
	return "on branch " + strings.TrimPrefix(ref, "refs/heads/")
}

package rewind

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/agents"
	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/restore"
)

// Fork is the JSON document of `git rewind --worktree`.
type Fork struct {
	Checkpoint string         `json:"checkpoint"`
	DryRun     bool           `json:"dry_run"`
	Worktree   string         `json:"worktree"`
	Branch     string         `json:"branch"`
	Head       string         `json:"head"`
	Files      []restore.File `json:"files"`
	Left       []restore.Left `json:"left"`
	// Resume, for a fetched checkpoint whose conversation was carried
	// with it, continues that conversation in the new worktree, from the
	// transcript placed at Transcript; the caller fills them in.
	Resume     *agents.Resume `json:"resume,omitempty"`
	Transcript string         `json:"transcript,omitempty"`
	// NoResume says why a conversation there cannot be resumed here.
	NoResume string `json:"no_resume,omitempty"`
}

// Fork makes a new linked worktree at path (absolute) on a new branch
// rewind/<id> at the checkpoint's HEAD, then writes the checkpoint's files
// there, so that its uncommitted changes are uncommitted changes in the
// fork too; with dry, it only says what it would do. This tree, its index
// and HEAD are not touched. The checkpoint must still be what its record
// says (its ref unmoved): Resolve refuses a moved ref as not_found. It
// holds the store lock while it works.
func (r *Rewinder) Fork(ctx context.Context, id, path string, dry bool) (*Fork, error) {
	unlock, err := r.Lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	j, refs, err := r.Journal(ctx)
	if err != nil {
		return nil, err
	}
	if id == "" {
		snap, err := r.Capture.Snapshot(ctx, j)
		if err != nil {
			return nil, err
		}
		if t := DefaultTarget(j, refs, snap.Tree, snap.Raw); t != nil {
			id = t.ID
		} else {
			id = "@"
		}
	}
	target, foreign, err := r.resolve(ctx, j, refs, id)
	if err != nil {
		return nil, err
	}
	if target.Head == "" {
		return nil, fault.New(fault.UnsupportedUnbornHead, "%s was taken before the first commit: a worktree needs a commit to start from", target.ID).
			WithHint("rewind this tree instead: 'git rewind " + target.ID + "'")
	}
	// The worktree starts from the target's HEAD: a fetched one's may be
	// missing here (a push carries it, but a shallow repository, or a
	// fetch that could not bring every object, may lack it).
	headTree, err := HeadTree(ctx, r.Git, target)
	if err != nil && foreign {
		return nil, fault.New(fault.NotFoundCommit, "%s was taken on HEAD %s, which this repository does not have", target.ID, fault.Short(target.Head)).
			WithHint("bring it with 'git fetch REMOTE " + target.Head + "' (or 'git fetch --unshallow REMOTE' in a shallow clone), then run this again").
			WithData(map[string]string{"id": target.ID, "head": target.Head})
	}
	if err != nil {
		return nil, err
	}
	path = filepath.Clean(path)
	// A ref name takes no colon: a fetched checkpoint's branch is
	// rewind/1c1aecbe-k3.
	branch, err := r.freeBranch(ctx, "rewind/"+strings.ReplaceAll(target.ID, ":", "-"))
	if err != nil {
		return nil, err
	}
	res := &Fork{Checkpoint: target.ID, DryRun: dry, Worktree: path, Branch: branch, Head: target.Head}
	// The plan turns a fresh checkout of the target's HEAD into the
	// target: such a checkout holds what git gives back, so the files
	// kept byte for byte are written as they were.
	var plan *restore.Plan
	if dry {
		plan, err = restore.New(ctx, r.Git, restore.Request{Top: path, Current: headTree, Head: target.Head, Target: target})
	} else {
		_, plan, err = AddWorktree(ctx, r.Git, WorktreeRequest{Path: path, Branch: branch, HeadTree: headTree, Target: target})
	}
	if err != nil {
		return nil, err
	}
	res.Files, res.Left = plan.Files, plan.Left
	return res, nil
}

// freeBranch returns name, or name-2, name-3... when taken.
func (r *Rewinder) freeBranch(ctx context.Context, name string) (string, error) {
	refs, err := r.Git.ForEachRef(ctx, "refs/heads/"+name, "refs/heads/"+name+"-*")
	if err != nil {
		return "", err
	}
	taken := map[string]bool{}
	for _, ref := range refs {
		taken[strings.TrimPrefix(ref.Name, "refs/heads/")] = true
	}
	cand := name
	for i := 2; taken[cand]; i++ {
		cand = name + "-" + strconv.Itoa(i)
	}
	return cand, nil
}

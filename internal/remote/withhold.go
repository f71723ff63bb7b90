package remote

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/gitformat"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// withhold is the copy of checkpoint r that a push publishes without
// paths: its tree (and raw overlay) without them, the same parents (the
// raw overlay's commit rewritten alike) and message, and a record naming
// each path as skipped with SkipWithheld, so that a rewind to it on
// another machine leaves those paths as they are and says why. This
// store keeps its own checkpoint whole; the records it publishes name
// the copy, and a later push recognizes it there (published).
func (p *Pusher) withhold(ctx context.Context, r *store.Record, paths []string) (*store.Record, error) {
	objs, err := p.Git.CatFile(ctx, []string{r.Commit})
	if err != nil {
		return nil, err
	}
	c, err := gitformat.ParseCommit(objs[0].Body)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", r.ID, err)
	}
	out := *r
	out.Skipped = slices.Clone(r.Skipped)
	for _, path := range paths {
		out.Skipped = append(out.Skipped, store.Skip{Path: path, Reason: store.SkipWithheld})
	}
	if out.Tree, err = p.Git.TreeWithout(ctx, p.Store.Dir, r.Tree, paths); err != nil {
		return nil, err
	}
	msg := c.Message
	parents := slices.Clone(c.Parents)
	if r.Raw != "" {
		if out.Raw, err = p.Git.TreeWithout(ctx, p.Store.Dir, r.Raw, paths); err != nil {
			return nil, err
		}
		for i, parent := range parents {
			pobjs, err := p.Git.CatFile(ctx, []string{parent})
			if err != nil {
				return nil, err
			}
			pc, err := gitformat.ParseCommit(pobjs[0].Body)
			if err != nil || pc.Tree != r.Raw {
				continue
			}
			if parents[i], err = p.Git.CommitTree(ctx, git.CommitRequest{Tree: out.Raw, Parents: pc.Parents, Message: pc.Message, Env: git.Identity}); err != nil {
				return nil, err
			}
		}
		msg = strings.Replace(msg, "Raw: "+r.Raw, "Raw: "+out.Raw, 1)
	}
	out.Commit, err = p.Git.CommitTree(ctx, git.CommitRequest{Tree: out.Tree, Parents: parents, Message: msg, Env: git.Identity})
	return &out, err
}

// withheld reports whether r withholds paths (a copy a push made).
func withheld(r *store.Record) bool {
	for _, s := range r.Skipped {
		if s.Reason == store.SkipWithheld {
			return true
		}
	}
	return false
}

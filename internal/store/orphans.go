package store

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
)

// An Orphan is the checkpoints of a linked worktree that no longer
// exists (`git worktree remove`, or its folder deleted and pruned): its
// state directory, journal included, went with it, and its refs stay
// under refs/checkpoints/wt-<name>/, which no command of any tree lists.
type Orphan struct {
	Worktree string    // "wt-<name>"
	Records  []*Record // rebuilt from the commits' trailers, oldest first
	Refs     []git.Ref
}

// Orphans lists the checkpoint refs of worktrees that are gone: a
// wt-<name> namespace with no <name> in the repository's worktrees
// directory, which git keeps for as long as the worktree is known.
func (s *Store) Orphans(ctx context.Context) ([]Orphan, error) {
	list, err := s.Git.ForEachRef(ctx, "refs/checkpoints/")
	if err != nil {
		return nil, err
	}
	byTree := map[string][]git.Ref{}
	for _, ref := range list {
		rest := strings.TrimPrefix(ref.Name, "refs/checkpoints/")
		wt, num, ok := strings.Cut(rest, "/")
		name, isWT := strings.CutPrefix(wt, "wt-")
		if n, err := strconv.Atoi(num); !ok || !isWT || err != nil || n <= 0 || wt == s.Worktree {
			continue
		}
		if _, err := os.Lstat(filepath.Join(s.CommonDir, "worktrees", name)); err == nil || !os.IsNotExist(err) {
			continue // the worktree is there, or nothing can be told
		}
		byTree[wt] = append(byTree[wt], ref)
	}
	var out []Orphan
	for wt, refs := range byTree {
		commits := make([]string, 0, len(refs))
		for _, ref := range refs {
			commits = append(commits, ref.OID)
		}
		recs, err := s.records(ctx, commits)
		if err != nil {
			return nil, err
		}
		o := Orphan{Worktree: wt, Refs: refs}
		for _, ref := range refs {
			if r := recs[ref.OID]; r != nil {
				c := *r
				c.N, _ = strconv.Atoi(ref.Name[strings.LastIndex(ref.Name, "/")+1:])
				c.ID = "k" + strconv.Itoa(c.N)
				o.Records = append(o.Records, &c)
			}
		}
		slices.SortFunc(o.Records, func(a, b *Record) int { return a.N - b.N })
		out = append(out, o)
	}
	slices.SortFunc(out, func(a, b Orphan) int { return strings.Compare(a.Worktree, b.Worktree) })
	return out, nil
}

// records rebuilds the records of checkpoint commits from their
// trailers, by commit.
func (s *Store) records(ctx context.Context, commits []string) (map[string]*Record, error) {
	byCommit := map[string]*Record{}
	if len(commits) == 0 {
		return byCommit, nil
	}
	args := append([]string{"log", "--no-walk=unsorted", "-z", "--format=%H%x1f%T%x1f%P%x1f%ct%x1f%B"}, commits...)
	out, err := s.Git.Run(ctx, git.Cmd{Args: args})
	if err != nil {
		return nil, err
	}
	for _, chunk := range strings.Split(string(out), "\x00") {
		if r := parseCommit(chunk); r != nil {
			byCommit[r.Commit] = r
		}
	}
	return byCommit, nil
}

// OrphanPruned is what a prune took from a removed worktree's refs.
type OrphanPruned struct {
	Worktree string
	Pruned   []*Record
	Kept     int
}

// pruneOrphans applies retention to removed worktrees' checkpoints. Only
// the age rules hold: the count (checkpoint.keep) and the newest are
// kept for a tree to go back to, and there is none, so a removed
// worktree's checkpoints all go once older than keepFor (safety ones,
// keepSafety). Each tree's refs go in one transaction with their
// expected values. No journal records it: the tree's journal is gone.
func (s *Store) pruneOrphans(ctx context.Context, r Retention, now time.Time, dry bool) ([]OrphanPruned, error) {
	orphans, err := s.Orphans(ctx)
	if err != nil {
		return nil, err
	}
	var out []OrphanPruned
	for _, o := range orphans {
		res := OrphanPruned{Worktree: o.Worktree}
		var deletes []git.RefUpdate
		for _, c := range o.Records {
			keepFor := r.KeepFor
			if c.Reason == ReasonPreRewind {
				keepFor = r.KeepSafety
			}
			if now.Sub(c.At) < keepFor {
				res.Kept++
				continue
			}
			ref := "refs/checkpoints/" + o.Worktree + "/" + strconv.Itoa(c.N)
			if !dry && !s.refDeletable(ref) {
				// A young lock: the ref stays for a later prune.
				res.Kept++
				continue
			}
			res.Pruned = append(res.Pruned, c)
			deletes = append(deletes, git.RefUpdate{Ref: ref, Old: c.Commit})
		}
		if len(res.Pruned) == 0 {
			continue
		}
		if !dry {
			if err := s.Git.UpdateRefs(ctx, deletes); err != nil {
				return out, fault.Wrap(err, fault.FailedGit, "cannot delete the checkpoints of removed worktree %s; none was deleted", o.Worktree)
			}
		}
		out = append(out, res)
	}
	return out, nil
}

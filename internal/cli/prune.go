package cli

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/remote"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

const pruneHelp = `Apply retention now: keep the newest checkpoint.keep checkpoints (200) and
any younger than checkpoint.keepFor (14d); keep safety checkpoints (taken
before each rewind) for checkpoint.keepSafety (30d); never the newest one, nor
the safety checkpoint of an interrupted rewind. Refs are deleted in one
transaction; the objects stay until git's own gc removes them (this command
never runs gc). Records whose ref was deleted by hand are forgotten.`

type pruneCmd struct {
	DryRun bool `short:"n" name:"dry-run" help:"Say what would be pruned; change nothing."`
}

// Help is the long help of git checkpoint prune.
func (c *pruneCmd) Help() string { return pruneHelp }

type pruneDoc struct {
	DryRun    bool     `json:"dry_run"`
	Pruned    []string `json:"pruned"`
	Forgotten []string `json:"forgotten"`
	Kept      int      `json:"kept"`
	// Fetched are the fetched stores retention trimmed.
	Fetched []trimmedDoc `json:"fetched"`
	// RemovedWorktrees are what went of removed worktrees' checkpoints.
	RemovedWorktrees []removedDoc `json:"removed_worktrees"`
}

type removedDoc struct {
	Worktree string   `json:"worktree"`
	Pruned   []string `json:"pruned"`
	Kept     int      `json:"kept"`
}

type trimmedDoc struct {
	Store  string   `json:"store"`
	Pruned []string `json:"pruned"`
	Gone   bool     `json:"gone"`
}

func (c *pruneCmd) Run(ctx context.Context, sys *IO, g *Globals) error {
	s, err := open(ctx, sys, g)
	if err != nil {
		return err
	}
	unlock, err := s.Lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	j, refs, err := s.Journal(ctx)
	if err != nil {
		return err
	}
	res, err := s.Store.Prune(ctx, j, refs, s.Retention(), c.DryRun)
	if err != nil {
		return err
	}
	trimmed, err := s.trimFetched(ctx, c.DryRun)
	if err != nil {
		return err
	}
	doc := pruneDoc{DryRun: c.DryRun, Pruned: ids(res.Pruned), Forgotten: ids(res.Forgotten), Kept: res.Kept, Fetched: []trimmedDoc{}}
	for _, t := range trimmed {
		doc.Fetched = append(doc.Fetched, trimmedDoc{Store: t.Store.Info.ID, Pruned: ids(numbered(t.Pruned)), Gone: t.Gone})
	}
	doc.RemovedWorktrees = []removedDoc{}
	for _, o := range res.Orphans {
		doc.RemovedWorktrees = append(doc.RemovedWorktrees, removedDoc{Worktree: o.Worktree, Pruned: ids(o.Pruned), Kept: o.Kept})
	}
	if s.out.json {
		return s.out.JSON(doc)
	}
	for _, t := range trimmed {
		n := len(t.Pruned)
		s.out.Printf("%s %d %s of fetched store %s: %s\n", verbOf(c.DryRun), n, fault.Plural(n, "checkpoint", "checkpoints"), t.Store.Short(), runs(numbered(t.Pruned)))
	}
	for _, o := range res.Orphans {
		n := len(o.Pruned)
		s.out.Printf("%s %d %s of removed worktree %s: %s\n", verbOf(c.DryRun), n, fault.Plural(n, "checkpoint", "checkpoints"), o.Worktree, runs(o.Pruned))
	}
	verb, forgot := verbOf(c.DryRun), "forgot"
	if c.DryRun {
		forgot = "would forget"
	}
	if len(doc.Pruned) > 0 {
		s.out.Printf("%s %d %s: %s\n", verb, len(doc.Pruned), fault.Plural(len(doc.Pruned), "checkpoint", "checkpoints"), runs(res.Pruned))
	}
	if len(doc.Forgotten) > 0 {
		s.out.Printf("%s %s: %s\n", forgot, fault.Plural(len(doc.Forgotten), "a checkpoint whose ref was already deleted", "checkpoints whose refs were already deleted"), runs(res.Forgotten))
	}
	if len(doc.Pruned)+len(doc.Forgotten)+len(trimmed)+len(res.Orphans) == 0 {
		s.out.Printf("nothing to prune\n")
	}
	s.out.Printf("%d %s kept (checkpoint.keep %d, keepFor %s, keepSafety %s)\n", doc.Kept,
		fault.Plural(doc.Kept, "checkpoint", "checkpoints"), s.Config.Keep, days(s.Config.KeepFor), days(s.Config.KeepSafety))
	if len(trimmed) > 0 {
		s.out.Printf("fetched stores keep their newest %d (checkpoint.keepRemote)\n", s.Config.KeepRemote)
	}
	if len(doc.Pruned)+len(trimmed)+len(res.Orphans) > 0 && !c.DryRun {
		s.out.Printf("their objects are left to git gc (this command never runs it)\n")
	}
	return nil
}

// trimFetched applies checkpoint.keepRemote to the stores fetched here.
func (s *session) trimFetched(ctx context.Context, dry bool) ([]remote.Trimmed, error) {
	stores, err := s.FetchedStores(ctx)
	if err != nil {
		return nil, err
	}
	return remote.Trim(ctx, s.Git, stores, s.Config.KeepRemote, dry)
}

// verbOf is what prune says it does to a checkpoint.
func verbOf(dry bool) string {
	if dry {
		return "would prune"
	}
	return "pruned"
}

// numbered is the records of checkpoint numbers, for the lists that print
// ids.
func numbered(ns []int) []*store.Record {
	out := make([]*store.Record, 0, len(ns))
	for _, n := range ns {
		out = append(out, &store.Record{ID: "k" + strconv.Itoa(n), N: n})
	}
	return out
}

func ids(recs []*store.Record) []string {
	out := []string{}
	for _, r := range recs {
		out = append(out, r.ID)
	}
	return out
}

// runs lists checkpoint ids for people, in order, with every run of three
// or more consecutive numbers as "kA..kB": a first prune after weeks of
// hook calls can take thousands. --json lists every id.
func runs(recs []*store.Record) string {
	ns := make([]int, 0, len(recs))
	for _, r := range recs {
		ns = append(ns, r.N)
	}
	slices.Sort(ns)
	var out []string
	for i := 0; i < len(ns); {
		j := i
		for j+1 < len(ns) && ns[j+1] == ns[j]+1 {
			j++
		}
		if j-i >= 2 {
			out = append(out, fmt.Sprintf("k%d..k%d", ns[i], ns[j]))
		} else {
			for k := i; k <= j; k++ {
				out = append(out, fmt.Sprintf("k%d", ns[k]))
			}
		}
		i = j + 1
	}
	return strings.Join(out, " ")
}

// days prints a retention period the way it is configured: "14d", "90m".
func days(d time.Duration) string {
	if d > 0 && d%(24*time.Hour) == 0 {
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	}
	return d.String()
}

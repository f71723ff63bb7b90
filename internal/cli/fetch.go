package cli

import (
	"context"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/remote"
)

const fetchHelp = `Bring every store REMOTE holds (the checkpoints and records other working
trees published with 'git checkpoint push'), except this one, into
refs/checkpoints/stores/ here, which no branch listing shows. 'git checkpoint
list --remote' lists them. REMOTE defaults to the current branch's upstream
remote, else origin.`

type fetchCmd struct {
	Remote string `arg:"" optional:"" help:"The remote (a name or a URL); default: the branch's upstream remote, else origin."`
	Prune  bool   `help:"Also remove here the checkpoints of REMOTE's stores that REMOTE no longer holds (pruned there with push --prune)."`
}

// Help is the long help of git checkpoint fetch.
func (c *fetchCmd) Help() string { return fetchHelp }

type fetchedStore struct {
	Store       string `json:"store"`
	Host        string `json:"host"`
	Worktree    string `json:"worktree"`
	Checkpoints int    `json:"checkpoints"`
}

func (c *fetchCmd) Run(ctx context.Context, sys *IO, g *Globals) error {
	s, err := open(ctx, sys, g)
	if err != nil {
		return err
	}
	name, err := s.remoteName(ctx, c.Remote)
	if err != nil {
		return err
	}
	own, err := s.Store.EnsureID()
	if err != nil {
		return err
	}
	stores, err := remote.Fetch(ctx, s.Git, own, name, c.Prune)
	if err != nil {
		return err
	}
	// What a fetch brings is kept as prune would keep it: the newest
	// checkpoint.keepRemote of each store (0 asks prune to drop them all,
	// and a fetch then keeps what it brought).
	if s.Config.KeepRemote > 0 {
		if _, err := remote.Trim(ctx, s.Git, stores, s.Config.KeepRemote, false); err != nil {
			return err
		}
	}
	doc := []fetchedStore{}
	for _, f := range stores {
		doc = append(doc, fetchedStore{Store: f.Info.ID, Host: f.Info.Host, Worktree: f.Info.Worktree, Checkpoints: len(f.Refs)})
	}
	if s.out.json {
		return s.out.JSON(map[string]any{"remote": name, "stores": doc})
	}
	if len(doc) == 0 {
		s.out.Printf("%s holds no other store's checkpoints\n", name)
		return nil
	}
	for _, d := range doc {
		s.out.Printf("store %s (%s, %s): %d %s\n", d.Store, fault.Quote(d.Host), d.Worktree, d.Checkpoints, fault.Plural(d.Checkpoints, "checkpoint", "checkpoints"))
	}
	return nil
}

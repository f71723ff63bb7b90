package cli

import (
	"context"

	"github.com/git-checkpoint/git-checkpoint/internal/capture"
	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

type createCmd struct {
	Message string `short:"m" name:"message" placeholder:"LABEL" empty:"allow" help:"A label to find this checkpoint by."`
	// Changed is for integrations and the benchmark: the per-tool capture
	// that agent hooks make, driven from the command line. Hidden, since
	// a person wants the whole tree.
	Changed []string `name:"changed" hidden:"" sep:"none" placeholder:"PATH" help:"Take a partial checkpoint: bring only PATH up to date (repeatable); the rest is as the newest checkpoint has it."`
}

func (c *createCmd) Run(ctx context.Context, sys *IO, g *Globals) error {
	opener := openScanning
	if len(c.Changed) > 0 {
		opener = open // a partial checkpoint scans nothing
	}
	s, err := opener(ctx, sys, g)
	if err != nil {
		return err
	}
	defer s.Release()
	j, unlock, err := s.LockedJournal(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	// A label names a moment the person cares about: it gets a checkpoint
	// of its own even when the tree is unchanged, rather than being lost
	// in a reuse.
	opts := capture.Options{Reason: store.ReasonManual, Label: c.Message, NoDedup: c.Message != ""}
	if opts.Only, err = s.Rels(c.Changed); err != nil {
		return err
	}
	opts.Paths = opts.Only
	stop := s.progress("scanning the working tree")
	rec, err := s.Capture.Capture(ctx, j, opts)
	stop()
	if err != nil {
		return err
	}
	return s.printCreated(rec)
}

// printCreated reports a checkpoint that was taken or reused.
func (s *session) printCreated(rec *store.Record) error {
	if s.out.json {
		return s.out.JSON(rec)
	}
	if rec.Reused {
		s.out.Printf("%s (reused: the tree and HEAD are unchanged)\n", rec.ID)
	} else {
		s.out.Printf("%s %s\n", rec.ID, changes(rec.Changes))
	}
	for _, sk := range rec.Skipped {
		if sk.Reason != store.SkipSkipWorktree {
			s.out.Printf("  skipped %s (%s)\n", fault.Quote(sk.Path), skipText(sk))
		}
	}
	return nil
}

func skipText(sk store.Skip) string {
	switch sk.Reason {
	case store.SkipTooBig:
		return capture.HumanBytes(sk.Bytes) + ", over checkpoint.maxFileBytes"
	case store.SkipTooBigTotal:
		return capture.HumanBytes(sk.Bytes) + " of new files, over checkpoint.maxTotalBytes"
	case store.SkipNestedRepo:
		return "a nested repository without a commit"
	}
	return sk.Reason
}

package cli

import (
	"context"

	"github.com/git-checkpoint/git-checkpoint/internal/capture"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

type createCmd struct {
	Message string `short:"m" name:"message" placeholder:"LABEL" help:"A label to find this checkpoint by."`
}

func (c *createCmd) Run(ctx context.Context, sys *IO, g *Globals) error {
	s, err := open(ctx, sys, g)
	if err != nil {
		return err
	}
	unlock, err := s.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	j, err := s.store.Journal()
	if err != nil {
		return err
	}
	stop := s.progress("scanning the working tree")
	rec, err := s.cap.Capture(ctx, j, capture.Options{Reason: store.ReasonManual, Label: c.Message})
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
		return nil
	}
	s.out.Printf("%s %s\n", rec.ID, changes(rec.Changes))
	for _, sk := range rec.Skipped {
		if sk.Reason != store.SkipSkipWorktree {
			s.out.Printf("  skipped %s (%s)\n", quote(sk.Path), skipText(sk))
		}
	}
	return nil
}

func skipText(sk store.Skip) string {
	switch sk.Reason {
	case store.SkipTooBig:
		return capture.HumanBytes(sk.Bytes) + ", over checkpoint.maxFileBytes"
	case store.SkipNestedRepo:
		return "a nested repository without a commit"
	}
	return sk.Reason
}

package cli

import (
	"context"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
	"github.com/git-checkpoint/git-checkpoint/internal/turns"
)

type showCmd struct {
	ID string `arg:"" help:"The checkpoint: k<n>, t<n>, @ or a commit."`
}

func (c *showCmd) Run(ctx context.Context, sys *IO, g *Globals) error {
	s, err := open(ctx, sys, g)
	if err != nil {
		return err
	}
	j, refs, err := s.journal(ctx)
	if err != nil {
		return err
	}
	r, err := turns.Resolve(j, refs, c.ID)
	if err != nil {
		return err
	}
	if s.out.json {
		return s.out.JSON(r)
	}
	s.printRecord(r)
	return nil
}

func (s *session) printRecord(r *store.Record) {
	field := func(k, v string) {
		if v != "" {
			s.out.Printf("%-11s %s\n", k, v)
		}
	}
	s.out.Printf("checkpoint %s\n", s.out.Paint("bold", r.ID))
	field("commit", r.Commit)
	field("tree", r.Tree)
	head := r.Head
	if head == "" {
		head = "(unborn)"
	}
	if r.Branch != "" {
		head += " (" + r.Branch + ")"
	} else if r.Head != "" {
		head += " (detached)"
	}
	field("head", head)
	field("reason", r.Reason)
	field("turn", r.Turn)
	field("session", r.Session)
	field("agent", r.Agent)
	field("tool", r.Tool)
	field("transcript", fault.Quote(r.Transcript))
	field("last line", r.TranscriptAt)
	field("at", r.At.Local().Format(time.RFC3339)+" ("+age(s.sys.Now(), r.At)+")")
	field("label", fault.Quote(r.Label))
	field("changes", changes(r.Changes))
	if r.Partial {
		field("partial", "yes: only the named paths were brought up to date")
	}
	for _, p := range r.Paths {
		field("path", fault.Quote(p))
	}
	for _, sk := range r.Skipped {
		field("skipped", fault.Quote(sk.Path)+" ("+skipText(sk)+")")
	}
	for _, sm := range r.Submodules {
		field("submodule", fault.Quote(sm.Path)+" "+sm.Commit)
	}
}

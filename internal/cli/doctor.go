package cli

import (
	"context"

	"github.com/git-checkpoint/git-checkpoint/internal/doctor"
	"github.com/git-checkpoint/git-checkpoint/internal/fault"
)

const doctorHelp = `Check the checkpoint store and its surroundings, and say how to fix each
problem: the git version, journal damage (lines that do not parse or chain,
a cut-short end), checkpoint refs without a record, records whose ref was
deleted or moved, lock files a killed command left, an interrupted rewind, files a killed rewind left, the
temporary worktree a killed bisect left, remotes
that would push checkpoints, and agent hooks whose binary is missing.
Without --fix it changes nothing. Exits 1 when it finds a problem.`

type doctorCmd struct {
	Fix bool `help:"First apply the repairs that need no decision: rebuild a damaged journal (keeping it aside), adopt refs without a record, remove the lock files and staging files a killed command left and a killed bisect's temporary worktree."`
}

// Help is the long help of git checkpoint doctor.
func (c *doctorCmd) Help() string { return doctorHelp }

type doctorDoc struct {
	Fixed    []string       `json:"fixed,omitempty"`
	Checks   []doctor.Check `json:"checks"`
	Problems int            `json:"problems"`
}

func (c *doctorCmd) Run(ctx context.Context, sys *IO, g *Globals) error {
	s, err := open(ctx, sys, g)
	if err != nil {
		return err
	}
	d := s.doctor(s.hookFailures())
	var doc doctorDoc
	if c.Fix {
		j, unlock, err := s.LockedJournal(ctx)
		if err != nil {
			return err
		}
		doc.Fixed, err = d.Repair(ctx, j)
		unlock()
		if err != nil {
			return err
		}
	}
	if doc.Checks, err = d.Checks(ctx); err != nil {
		return err
	}
	for _, ch := range doc.Checks {
		if !ch.OK {
			doc.Problems++
		}
	}
	if s.out.json {
		if err := s.out.JSON(doc); err != nil {
			return err
		}
	} else {
		for _, f := range doc.Fixed {
			s.out.Printf("%-8s %s\n", s.out.Paint("green", "fixed"), f)
		}
		for _, ch := range doc.Checks {
			mark := s.out.Paint("green", "ok")
			if !ch.OK {
				mark = s.out.Paint("red", "problem")
			}
			s.out.Printf("%-8s %s\n", mark, ch.Message)
			if ch.Fix != "" {
				s.out.Printf("%-8s fix: %s\n", "", ch.Fix)
			}
		}
		switch doc.Problems {
		case 0:
			s.out.Printf("no problems found\n")
		default:
			s.out.Printf("%d %s found\n", doc.Problems, fault.Plural(doc.Problems, "problem", "problems"))
		}
	}
	if doc.Problems > 0 {
		return &fault.ExitStatus{Code: 1}
	}
	return nil
}

// doctor is the health check of this session's tree, told of the hook
// failures f (what hookFailures read, nil while hooks work).
func (s *session) doctor(f *hookFailures) *doctor.Doctor {
	d := &doctor.Doctor{Git: s.Git, Repo: s.Repo, Store: s.Store, Cwd: s.Cwd, Getenv: s.sys.Getenv,
		KeepFor: days(s.Config.KeepFor)}
	if f != nil {
		d.HookFailures = f.describe(s.sys.Now())
	}
	return d
}

package cli

import (
	"context"

	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

type statusCmd struct{}

type statusDoc struct {
	Mode        string        `json:"mode"` // "repository" or "private"
	Worktree    string        `json:"worktree"`
	Top         string        `json:"top"`
	StateDir    string        `json:"state_dir"`
	Checkpoints int           `json:"checkpoints"`
	Latest      *store.Record `json:"latest"`
	Interrupted *store.Rewind `json:"interrupted_rewind"`
	Problems    []string      `json:"journal_problems,omitempty"`
}

func (c *statusCmd) Run(ctx context.Context, sys *IO, g *Globals) error {
	s, err := open(ctx, sys, g)
	if err != nil {
		return err
	}
	j, refs, err := s.journal(ctx)
	if err != nil {
		return err
	}
	doc := statusDoc{Mode: "repository", Worktree: s.repo.Worktree, Top: s.repo.Top, StateDir: s.store.Dir,
		Checkpoints: len(refs), Latest: j.Latest(), Problems: j.Problems}
	if started, ended := j.LastRewind(); started != nil && !ended {
		doc.Interrupted = started
	}
	if s.out.json {
		return s.out.JSON(doc)
	}
	s.out.Printf("worktree     %s (%s)\n", doc.Top, doc.Worktree)
	s.out.Printf("store        %s\n", doc.StateDir)
	s.out.Printf("checkpoints  %d\n", doc.Checkpoints)
	if l := doc.Latest; l != nil {
		s.out.Printf("latest       %s, %s, %s\n", l.ID, age(sys.Now(), l.At), l.Reason)
	}
	if r := doc.Interrupted; r != nil {
		s.out.Printf("%s  a rewind to %s was interrupted; undo it with 'git rewind --undo' (safety checkpoint %s)\n",
			s.out.Paint("red", "interrupted"), r.Target, r.Safety)
	}
	for _, p := range doc.Problems {
		s.out.Printf("journal      %s (run 'git checkpoint doctor')\n", p)
	}
	return nil
}

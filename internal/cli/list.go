package cli

import (
	"context"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
	"github.com/git-checkpoint/git-checkpoint/internal/turns"
)

type listCmd struct {
	Count   int    `short:"n" default:"20" placeholder:"N" help:"Show at most N checkpoints."`
	Session string `placeholder:"S" complete:"session" help:"Only checkpoints of agent session S (an id or a unique prefix)."`
	All     bool   `help:"Show every checkpoint, not just the newest N."`
	Remote  bool   `help:"List the checkpoints of the stores fetched from remotes (git checkpoint fetch) instead."`
}

func (c *listCmd) Run(ctx context.Context, sys *IO, g *Globals) error {
	if c.Count < 1 {
		return fault.New(fault.InvalidUsage, "-n takes a count of 1 or more, not %d", c.Count).
			WithHint("'git checkpoint list --all' shows every checkpoint")
	}
	s, err := open(ctx, sys, g)
	if err != nil {
		return err
	}
	if c.Remote {
		return c.listRemote(ctx, s)
	}
	j, refs, err := s.Journal(ctx)
	if err != nil {
		return err
	}
	n := c.Count
	if c.All {
		n = 0
	}
	doc, err := turns.List(j, refs, c.Session, n)
	if err != nil {
		return err
	}
	if s.out.json {
		return s.out.JSON(doc)
	}
	recs := doc.Checkpoints
	if len(recs) == 0 && c.Session != "" {
		s.out.Printf("no checkpoint of session %s\n", fault.Quote(c.Session))
		return nil
	}
	if len(recs) == 0 {
		s.out.Printf("no checkpoints yet: take one with 'git checkpoint'\n")
		return nil
	}
	now := sys.Now()
	starts := turns.Starts(j)
	rows := [][]string{{"ID", "AGE", "REASON", "TURN", "SESSION", "CHANGES", "LABEL"}}
	for _, r := range recs {
		label := fault.Quote(r.Label)
		if t, ok := starts[r.ID]; ok {
			label = withPrompt(label, r, t)
		}
		if !refs.Live(r) {
			label = "(ref gone) " + label
		}
		if r.Partial {
			label = "(partial) " + label
		}
		sess := short(r.Session)
		if r.Agent != "" {
			sess = strings.TrimSpace(r.Agent + " " + sess)
		}
		rows = append(rows, []string{r.ID, age(now, r.At), r.Reason, r.Turn, sess, changes(r.Changes), label})
	}
	s.out.table(rows)
	s.out.legend()
	return nil
}

// withPrompt adds to a label the first line of the prompt of turn t, which
// starts at r, so that a list says what was asked where it began: after
// the turn's id when r is of another turn (or none: a manual checkpoint
// that the turn's start reused), and not at all when the label says it
// already (a run's command line).
func withPrompt(label string, r *store.Record, t turns.Turn) string {
	p := fault.Quote(turns.FirstLine(t.Prompt))
	if p == "" || p == label {
		return label
	}
	if t.ID != r.Turn {
		p = t.ID + ": " + p
	}
	if label == "" {
		return p
	}
	return label + "; " + p
}

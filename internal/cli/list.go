package cli

import (
	"context"
	"slices"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

type listCmd struct {
	Count   int    `short:"n" default:"20" placeholder:"N" help:"Show at most N checkpoints."`
	Session string `placeholder:"S" help:"Only checkpoints of agent session S."`
	All     bool   `help:"Show every checkpoint, not just the newest N."`
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
	j, refs, err := s.journal(ctx)
	if err != nil {
		return err
	}
	var recs []*store.Record
	for _, r := range slices.Backward(j.Checkpoints()) {
		if refs[r.N] != r.Commit && j.Pruned(r.ID) {
			continue
		}
		if c.Session != "" && r.Session != c.Session {
			continue
		}
		if !c.All && len(recs) == c.Count {
			break
		}
		recs = append(recs, r)
	}
	if s.out.json {
		if recs == nil {
			recs = []*store.Record{}
		}
		return s.out.JSON(map[string]any{"checkpoints": recs})
	}
	if len(recs) == 0 && c.Session != "" {
		s.out.Printf("no checkpoint of session %s\n", fault.Quote(c.Session))
		return nil
	}
	if len(recs) == 0 {
		s.out.Printf("no checkpoints yet: take one with 'git checkpoint'\n")
		return nil
	}
	now := sys.Now()
	rows := [][]string{{"ID", "AGE", "REASON", "TURN", "SESSION", "CHANGES", "LABEL"}}
	for _, r := range recs {
		label := fault.Quote(r.Label)
		if refs[r.N] != r.Commit {
			label = "(ref gone) " + label
		}
		if r.Partial {
			label = "(partial) " + label
		}
		sess := r.Session
		if len(sess) > 8 {
			sess = sess[:8]
		}
		if r.Agent != "" {
			sess = strings.TrimSpace(r.Agent + " " + sess)
		}
		rows = append(rows, []string{r.ID, age(now, r.At), r.Reason, r.Turn, sess, changes(r.Changes), label})
	}
	s.out.table(rows)
	return nil
}

// table prints rows with columns padded to their widest cell.
func (p *printer) table(rows [][]string) {
	width := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, cell := range row {
			width[i] = max(width[i], len(cell))
		}
	}
	for _, row := range rows {
		var b strings.Builder
		for i, cell := range row {
			if i == len(row)-1 {
				b.WriteString(cell)
				break
			}
			b.WriteString(cell + strings.Repeat(" ", width[i]-len(cell)+2))
		}
		p.Printf("%s\n", strings.TrimRight(b.String(), " "))
	}
}

package cli

import (
	"context"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
	"github.com/git-checkpoint/git-checkpoint/internal/turns"
)

type logCmd struct {
	Count   int    `short:"n" default:"20" placeholder:"N" help:"Show at most the newest N turns."`
	Session string `placeholder:"S" complete:"session" help:"Only the turns of agent session S (an id or a unique prefix)."`
	Stat    bool   `help:"List the files each turn changed."`
	Remote  bool   `help:"Show the turns of the stores fetched from remotes (git checkpoint fetch) instead, each store's under its id."`
}

func (c *logCmd) Help() string {
	return `One entry per turn, newest first: its id, age, agent and session, the first
line of its prompt, what it changed (~modified +added -deleted) and its start
and end checkpoints. Checkpoints taken outside turns (manual ones, rewinds,
commits) appear between the turns, one line each. On a terminal the prompt is
cut to the terminal's width.`
}

func (c *logCmd) Run(ctx context.Context, sys *IO, g *Globals) error {
	if c.Count < 1 {
		return fault.New(fault.InvalidUsage, "-n takes a count of 1 or more, not %d", c.Count).
			WithHint("'git checkpoint log -n 20' shows the newest 20 turns")
	}
	s, err := open(ctx, sys, g)
	if err != nil {
		return err
	}
	if c.Remote {
		return c.logRemote(ctx, s)
	}
	j, _, err := s.Journal(ctx)
	if err != nil {
		return err
	}
	entries, err := c.entries(ctx, s, j)
	if err != nil {
		return err
	}
	if s.out.json {
		return s.out.JSON(turns.Document(entries))
	}
	switch {
	case len(entries) == 0 && c.Session != "":
		s.out.Printf("no turn of session %s\n", fault.Quote(c.Session))
		return nil
	case len(entries) == 0:
		s.out.Printf("no turns yet: hooks ('git checkpoint install AGENT') and 'git checkpoint run' record them\n")
		return nil
	}
	s.printLog(entries, c.Stat)
	s.out.legend()
	return nil
}

// entries are the log of journal j as the flags ask for it.
func (c *logCmd) entries(ctx context.Context, s *session, j *store.Journal) ([]turns.Entry, error) {
	opts := turns.LogOptions{Turns: c.Count}
	if c.Session != "" {
		var err error
		if opts.Session, err = turns.MatchSession(j, c.Session); err != nil || opts.Session == "" {
			return nil, err
		}
	}
	return turns.Log(ctx, s.Git, j, opts)
}

// printLog prints the entries as a table, each turn's files under it with
// --stat.
func (s *session) printLog(entries []turns.Entry, stat bool) {
	now := s.sys.Now()
	rows := [][]string{{"ID", "AGE", "AGENT", "CHANGES", "CHECKPOINTS", "PROMPT"}}
	for _, e := range entries {
		if e.Turn == nil {
			r := e.Checkpoint
			who, text := r.Reason, fault.Quote(r.Label)
			if r.Reason == store.ReasonRewind {
				text = strings.TrimPrefix(text, "after ")
			}
			if r.Agent != "" {
				who = strings.TrimSpace(r.Agent + " " + short(r.Session))
			}
			if e.By != "" {
				who += " by " + e.By
			}
			if text == "" {
				text = fault.Quote(turns.FirstLine(r.Prompt))
			}
			rows = append(rows, []string{r.ID, age(now, r.At), who, changes(r.Changes), r.ID, text})
			continue
		}
		t := e.Turn
		who := t.Agent
		if sess := short(t.Session); sess != "" {
			who += " " + sess
		}
		counts := "?"
		if e.Changes != nil {
			counts = changes(*e.Changes)
		}
		rows = append(rows, []string{t.ID, age(now, t.StartedAt), who, counts, span(e), fault.Quote(turns.FirstLine(t.Prompt))})
	}
	for i, line := range s.out.tableLines(rows) {
		s.out.Printf("%s\n", line)
		e := entries[max(i-1, 0)]
		if i == 0 || e.Turn == nil {
			continue
		}
		if on, changed := store.SwitchChanged(e.Turn.SwitchAtStart, e.Turn.SwitchAtEnd); changed {
			s.out.Printf("    %s %s\n", s.out.Paint("red", "!"), store.SwitchNote(e.Turn.ID, on))
		}
		if stat {
			for _, f := range e.Files {
				s.out.Printf("    %s %s\n", strings.ToUpper(f.Change[:1]), fault.Quote(f.Path))
			}
		}
	}
}

// span names a turn's start and end checkpoints, "k4..k7": "?" for one
// that was pruned or never recorded, and "running" for the end of a turn
// that is still going.
func span(e turns.Entry) string {
	start, end := "?", "?"
	if e.Turn.Start != nil {
		start = e.Turn.Start.ID
	}
	switch {
	case e.Turn.End != nil:
		end = e.Turn.End.ID
	case e.Running:
		end = "running"
	}
	return start + ".." + end
}

// short is a session id as the lists print it: its first eight characters.
func short(session string) string {
	if len(session) > 8 {
		return session[:8]
	}
	return session
}

package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
	"github.com/git-checkpoint/git-checkpoint/internal/turns"
)

type showCmd struct {
	ID string `arg:"" complete:"checkpoint" help:"The checkpoint: k<n>, t<n>, @ or a commit."`
}

func (c *showCmd) Run(ctx context.Context, sys *IO, g *Globals) error {
	s, err := open(ctx, sys, g)
	if err != nil {
		return err
	}
	j, refs, err := s.Journal(ctx)
	if err != nil {
		return err
	}
	r, j, err := s.Resolve(ctx, j, refs, c.ID)
	if err != nil {
		return err
	}
	// A fetched checkpoint's turn is looked up by its id in its own store.
	inner, tid := r, c.ID
	if _, rest, ok := turns.InStore(c.ID); ok {
		local := *r
		local.ID = "k" + strconv.Itoa(r.N)
		inner, tid = &local, rest
	}
	turn, err := s.startedTurn(ctx, j, inner, tid)
	if err != nil {
		return err
	}
	// Who applied the rewind it belongs to, from the journal of its own
	// store, by its id there.
	by := j.RewindsBy()[inner.ID]
	if pfx, _, ok := strings.Cut(r.ID, ":"); ok && turn != nil {
		q := turn.InStore(pfx)
		turn = &q
	}
	if s.out.json {
		return s.out.JSON(struct {
			*store.Record
			By         string       `json:"by,omitempty"`
			StartsTurn *turns.Entry `json:"starts_turn,omitempty"`
		}{r, by, turn})
	}
	s.printRecord(r)
	if by == store.ByModel {
		by = "the model, through git checkpoint mcp"
	}
	s.field("by", by)
	if turn != nil {
		s.printTurn(turn)
	}
	return nil
}

// startedTurn is the turn a checkpoint started, as the log has it: the
// one id names when it is t<n>, else the one the checkpoint started, if
// any. A turn is the unit people think in, so showing its start shows it.
func (s *session) startedTurn(ctx context.Context, j *store.Journal, r *store.Record, id string) (*turns.Entry, error) {
	if !strings.HasPrefix(id, "t") {
		t, ok := turns.Starts(j)[r.ID]
		if !ok {
			return nil, nil
		}
		id = t.ID
	}
	return turns.Find(ctx, s.Git, j, id)
}

// printTurn prints a turn under the record of its start: who, when, its
// checkpoints, what it changed, and its prompt whole, as recorded.
func (s *session) printTurn(e *turns.Entry) {
	t := e.Turn
	field := s.field
	s.out.Printf("\nturn %s\n", s.out.Paint("bold", t.ID))
	field("agent", t.Agent)
	field("session", t.Session)
	field("started", t.StartedAt.Local().Format(time.RFC3339)+" ("+age(s.sys.Now(), t.StartedAt)+")")
	if !t.EndedAt.IsZero() {
		field("ended", t.EndedAt.Local().Format(time.RFC3339)+" ("+age(s.sys.Now(), t.EndedAt)+")")
	}
	start, end, _ := strings.Cut(span(*e), "..")
	field("start", start)
	field("end", end)
	if e.Changes != nil {
		field("changes", changes(*e.Changes))
	}
	for _, f := range e.Files {
		field("file", strings.ToUpper(f.Change[:1])+" "+fault.Quote(f.Path))
	}
	if t.Prompt == "" {
		field("prompt", "(not recorded)")
		return
	}
	key := "prompt"
	for line := range strings.Lines(t.Prompt) {
		s.out.Printf("%s\n", strings.TrimRight(fmt.Sprintf("%-11s %s", key, fault.Quote(strings.TrimRight(line, "\r\n"))), " "))
		key = ""
	}
}

// field prints one "key value" line of show, when there is a value.
func (s *session) field(k, v string) {
	if v != "" {
		s.out.Printf("%-11s %s\n", k, v)
	}
}

func (s *session) printRecord(r *store.Record) {
	field := s.field
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

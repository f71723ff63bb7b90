package turns

import (
	"context"
	"slices"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// LogOptions say which entries Log gives.
type LogOptions struct {
	// Session, when set, keeps only that session's turns and checkpoints:
	// an id or a unique prefix, as MatchSession takes it (one that
	// matches no session gives no entry); manual checkpoints and rewinds
	// belong to no session, so none is given then.
	Session string
	// Turns, when above 0, gives only the newest that many turns, and
	// the checkpoints taken since the oldest of them started.
	Turns int
	// TurnsOnly leaves out the checkpoints outside turns.
	TurnsOnly bool
}

// Entry is one entry of the turn log: a turn, or a checkpoint taken
// outside any turn (a manual one, a rewind's, a commit's), which people
// read between the turns as what they did themselves.
type Entry struct {
	Turn *Turn // nil for a checkpoint entry
	// Checkpoint is the record of a checkpoint outside turns; nil for a
	// turn. A rewind is given by the checkpoint it ended with (its label
	// says "after rewind to k<n>"), not by its safety checkpoint.
	Checkpoint *store.Record
	// By says who applied the rewind a checkpoint entry ended, when not a
	// person at the command line: store.ByModel (the journal's Rewind.By).
	By string
	// Changes counts what the turn changed, from its start to its end (to
	// its newest checkpoint while it runs); nil when its start or its end
	// was pruned, and so what it changed is no longer known.
	Changes *store.Changes
	// Files are the paths the turn changed, in git's order.
	Files []File
	// Running says the turn has no end yet and is its session's newest:
	// an older turn without an end never had it recorded (the agent was
	// killed), and its changes are counted to its last checkpoint alike.
	Running bool
	// at orders the entries: the journal line of a turn's first event,
	// or of the checkpoint's.
	at int
}

// File is one path a turn changed: "added", "modified" or "deleted".
type File struct {
	Path   string `json:"path"`
	Change string `json:"change"`
}

type plainFile File

// MarshalJSON adds path_base64 for a path that is not UTF-8.
func (f File) MarshalJSON() ([]byte, error) { return store.MarshalWithRawName(plainFile(f), f.Path) }

// Log lists the turns of the journal and, between them, the checkpoints
// taken outside turns, newest first, each turn with what it changed (one
// git process for all of them). It is the history `git checkpoint log`
// prints and that a turn picker or a server shows.
func Log(ctx context.Context, r *git.Runner, j *store.Journal, opts LogOptions) ([]Entry, error) {
	if opts.Session != "" {
		session, err := MatchSession(j, opts.Session)
		if err != nil || session == "" {
			return nil, err
		}
		opts.Session = session
	}
	var out []Entry
	first := map[string]int{} // a turn's first journal line
	by := j.RewindsBy()
	for i, ev := range j.All() {
		c := ev.Checkpoint
		if c == nil {
			continue
		}
		if c.Turn != "" {
			if _, ok := first[c.Turn]; !ok {
				first[c.Turn] = i
			}
			continue
		}
		if !opts.TurnsOnly && outsideTurns(c) && (opts.Session == "" || c.Session == opts.Session) {
			out = append(out, Entry{Checkpoint: c, By: by[c.ID], at: i})
		}
	}
	var ts []Turn
	for _, t := range History(j) {
		if opts.Session == "" || t.Session == opts.Session {
			ts = append(ts, t)
		}
	}
	if opts.Turns > 0 && len(ts) > opts.Turns {
		ts = ts[len(ts)-opts.Turns:]
		since := first[ts[0].ID]
		out = slices.DeleteFunc(out, func(e Entry) bool { return e.at < since })
	}
	turned, err := entries(ctx, r, j, ts)
	if err != nil {
		return nil, err
	}
	for i := range turned {
		turned[i].at = first[ts[i].ID]
	}
	out = append(out, turned...)
	slices.SortStableFunc(out, func(a, b Entry) int { return b.at - a.at })
	return out, nil
}

// entries makes the entries of turns ts, in their order, with what each
// changed (one git process for all of them).
func entries(ctx context.Context, r *git.Runner, j *store.Journal, ts []Turn) ([]Entry, error) {
	// A running turn's changes are those so far: up to its newest
	// checkpoint, which Diff takes for its end.
	sofar := make([]Turn, len(ts))
	for i, t := range ts {
		sofar[i] = t
		if t.End == nil && len(t.Records) > 0 {
			sofar[i].End = t.Records[len(t.Records)-1]
		}
	}
	diffs, err := Diff(ctx, r, sofar)
	if err != nil {
		return nil, err
	}
	newest := map[string]string{} // each session's newest turn
	for _, t := range History(j) {
		newest[t.Session] = t.ID
	}
	out := make([]Entry, len(ts))
	for i := range ts {
		e := Entry{Turn: &ts[i]}
		e.Running = ts[i].End == nil && newest[ts[i].Session] == ts[i].ID
		if sofar[i].Start != nil && sofar[i].End != nil {
			c := store.Count(diffs[i])
			e.Changes = &c
			for _, d := range diffs[i] {
				e.Files = append(e.Files, File{Path: d.Path, Change: changeWord(d.Status)})
			}
		}
		out[i] = e
	}
	return out, nil
}

// Find gives the entry of turn id (t<n>) as Log would, or nil when the
// journal has no such turn.
func Find(ctx context.Context, r *git.Runner, j *store.Journal, id string) (*Entry, error) {
	for _, t := range History(j) {
		if t.ID == id {
			es, err := entries(ctx, r, j, []Turn{t})
			if err != nil {
				return nil, err
			}
			return &es[0], nil
		}
	}
	return nil, nil
}

// Newest gives the newest n turns (every turn when n is 0), newest first,
// each with its prompt (Turn.Prompt, FirstLine for one line), its start
// (Turn.StartedAt, for its age) and its change counts: what a turn picker
// lists.
func Newest(ctx context.Context, r *git.Runner, j *store.Journal, n int) ([]Entry, error) {
	return Log(ctx, r, j, LogOptions{Turns: n, TurnsOnly: true})
}

// outsideTurns reports whether a checkpoint outside turns is worth an
// entry: one a person took, a rewind's end, a commit's, and one that
// carries a prompt (the end of a Codex turn that only its notify program
// saw, before its hooks were trusted: a turn in all but its start). A
// rewind's safety checkpoint is left out, since the rewind's own entry
// stands for it.
func outsideTurns(c *store.Record) bool {
	switch c.Reason {
	case store.ReasonManual, store.ReasonRewind, store.ReasonCommit:
		return true
	}
	return c.Prompt != ""
}

// changeWord names a change as the JSON of a turn's changes counts it.
func changeWord(status string) string {
	switch status {
	case "A":
		return "added"
	case "D":
		return "deleted"
	}
	return "modified"
}

// FirstLine is a prompt's first line that is not blank, trimmed: what a
// one-line view of a turn shows of it.
func FirstLine(prompt string) string {
	for line := range strings.Lines(prompt) {
		if s := strings.TrimSpace(line); s != "" {
			return s
		}
	}
	return ""
}

package turns

import (
	"context"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// Turn is one turn as the journal tells it: a prompt of a session, or one
// `git checkpoint run`, from the checkpoint at its start to the one at its
// end. It is the unit people think in ("undo what it did when I asked for
// the cache layer"): the log, the picker, --only and bisect list turns.
type Turn struct {
	ID      string // t<n>
	Session string
	Agent   string
	Prompt  string // as recorded, cut at store.MaxPrompt; "" when not recorded
	// Start and End are the checkpoints at the turn's start and end, as
	// the journal holds them (nil when pruned, and End while the turn
	// runs or when its end was never recorded).
	Start, End *store.Record
	// SwitchAtStart and SwitchAtEnd are checkpoint.mcpRewind as the
	// turn's start and end events recorded it (store.SwitchChanged): a
	// reused checkpoint's record is the first one's, not the event's.
	SwitchAtStart, SwitchAtEnd *bool
	StartedAt, EndedAt         time.Time // EndedAt is zero without an end
	// Records are the turn's events' records in journal order, tool calls
	// included: copies that say what each event named (Tool, Paths).
	Records []*store.Record
}

// History lists the turns of the journal, oldest first. A turn's end is
// its last turn or run end event; its prompt the one its start recorded,
// else the one its end did (Codex's notify carries the turn's messages).
func History(j *store.Journal) []Turn {
	var out []Turn
	at := map[string]int{}
	for _, ev := range j.All() {
		c := ev.Checkpoint
		if c == nil || c.Turn == "" {
			continue
		}
		i, ok := at[c.Turn]
		if !ok {
			i = len(out)
			at[c.Turn] = i
			out = append(out, Turn{ID: c.Turn, Session: c.Session, Agent: c.Agent, StartedAt: c.At})
		}
		t := &out[i]
		t.Records = append(t.Records, c)
		switch {
		case IsStart(c):
			t.Start, t.StartedAt, t.SwitchAtStart = j.ByID(c.ID), c.At, c.MCPRewind
			if c.Prompt != "" {
				t.Prompt = c.Prompt
			}
		case c.Reason == store.ReasonTurnEnd || c.Reason == store.ReasonRunEnd:
			t.End, t.EndedAt, t.SwitchAtEnd = j.ByID(c.ID), c.At, c.MCPRewind
			if t.Prompt == "" {
				t.Prompt = c.Prompt
			}
		}
		if t.Session == "" {
			t.Session = c.Session
		}
	}
	return out
}

// Diff lists what each turn changed, from the tree at its start to the
// tree at its end, in one git process for all of them. A turn without a
// start or an end has no entries.
func Diff(ctx context.Context, r *git.Runner, ts []Turn) ([][]git.DiffEntry, error) {
	var pairs []git.TreePair
	var index []int
	for i, t := range ts {
		if t.Start != nil && t.End != nil {
			pairs = append(pairs, git.TreePair{From: t.Start.Tree, To: t.End.Tree})
			index = append(index, i)
		}
	}
	out := make([][]git.DiffEntry, len(ts))
	if len(pairs) == 0 {
		return out, nil
	}
	diffs, err := r.DiffTrees(ctx, pairs, git.DiffTreeOptions{Format: git.DiffNameStatus})
	if err != nil {
		return nil, err
	}
	for k, i := range index {
		out[i] = diffs[k]
	}
	return out, nil
}

// Starts maps each checkpoint a turn started at to that turn, so that a
// view of checkpoints can name what was asked where it began. A
// checkpoint that ended one turn and, nothing having changed, started the
// next maps to the next; one that started several turns maps to the first.
func Starts(j *store.Journal) map[string]Turn {
	out := map[string]Turn{}
	for _, t := range History(j) {
		if t.Start == nil {
			continue
		}
		if _, ok := out[t.Start.ID]; !ok || t.ID == t.Start.Turn {
			out[t.Start.ID] = t
		}
	}
	return out
}

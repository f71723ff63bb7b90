// Package turns reads agent turns out of the journal: it numbers them
// (t<n>, counted per working tree), finds the turn a session is in, and
// says whose change a path is (DESIGN section 6.3) from the windows between
// consecutive captures.
package turns

import (
	"iter"
	"strconv"

	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// Number returns n for a turn id "t<n>", or 0.
func Number(id string) int { return store.TurnNumber(id) }

// Next returns the id the next turn of this working tree gets. Turn numbers
// are never reused, so that t<n> keeps naming one turn.
func Next(j *store.Journal) string {
	return "t" + strconv.Itoa(j.MaxTurn()+1)
}

// Current returns the turn session is in: the turn of its newest record
// that has one, or "" when none has. A turn stays current after its end,
// because a background subagent can still write after the main agent
// stopped; its tool calls belong to that turn.
func Current(j *store.Journal, session string) string {
	if session == "" {
		return ""
	}
	return j.TurnOf(session)
}

// IsStart reports whether a checkpoint was taken at the start of a turn (a
// prompt, or a program started by `git checkpoint run`).
func IsStart(r *store.Record) bool {
	return r.Reason == store.ReasonTurnStart || r.Reason == store.ReasonRunStart
}

// LatestStarts yields the checkpoints taken at turn starts, newest first,
// each once (a turn start that reused a checkpoint names that checkpoint).
// It decodes the records from the newest back only as far as it is asked
// to go: a bare rewind wants the newest start that differs from the tree.
func LatestStarts(j *store.Journal) iter.Seq[*store.Record] {
	return func(yield func(*store.Record) bool) {
		recs := j.Records()
		seen := map[string]bool{}
		for i := recs.Len() - 1; i >= 0; i-- {
			c := recs.Get(i)
			if !IsStart(c) || seen[c.ID] {
				continue
			}
			seen[c.ID] = true
			if r := j.ByID(c.ID); r != nil && !yield(r) {
				return
			}
		}
	}
}

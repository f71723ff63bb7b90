// Package turns reads agent turns out of the journal: it numbers them
// (t<n>, counted per working tree), finds the turn a session is in, and
// says whose change a path is (DESIGN section 6.3) from the windows between
// consecutive captures.
package turns

import (
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

// LatestStarts returns the checkpoints taken at turn starts, newest first,
// each once (a turn start that reused a checkpoint names that checkpoint).
func LatestStarts(j *store.Journal) []*store.Record {
	var out []*store.Record
	seen := map[string]bool{}
	events := j.All()
	for i := len(events) - 1; i >= 0; i-- {
		c := events[i].Checkpoint
		if c == nil || !IsStart(c) || seen[c.ID] {
			continue
		}
		seen[c.ID] = true
		if r := j.ByID(c.ID); r != nil {
			out = append(out, r)
		}
	}
	return out
}

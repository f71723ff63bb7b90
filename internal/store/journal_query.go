package store

import (
	"iter"
	"strconv"
	"strings"
)

// The questions asked of a read journal: the newest checkpoint, the
// highest number and turn, a record by id, whether an id was pruned, the
// last rewind. Each decodes only the lines it needs.

// Event returns event i (0 is the oldest), decoding it if need be: a
// question about the newest events, asked from the end, decodes only the
// events it reads. A line that was glanced at decodes (it has the shape of
// one json.Marshal wrote, and its bytes are chained); should it not, it
// stands as an event of its type with nothing in it.
func (j *Journal) Event(i int) *Event {
	j.whole()
	return j.decoded(i)
}

// decoded returns event i of the lines read so far.
func (j *Journal) decoded(i int) *Event {
	ev, err := j.lines[i].decode()
	if err != nil {
		return &Event{Type: j.lines[i].typ}
	}
	return ev
}

// Len returns the number of events.
func (j *Journal) Len() int {
	j.whole()
	return len(j.lines)
}

// Problems lists what did not parse or did not chain, one line each, for
// doctor; the events that did parse are still used.
func (j *Journal) Problems() []string {
	j.whole()
	return j.problems
}

// All returns every event, in order, decoding what was not yet.
func (j *Journal) All() []Event {
	j.whole()
	if len(j.all) != len(j.lines) {
		j.all = make([]Event, len(j.lines))
		for i := range j.lines {
			j.all[i] = *j.Event(i)
		}
	}
	return j.all
}

// Checkpoints returns the checkpoints in the order they were taken, without
// the reuse records (those name a checkpoint that is already listed).
func (j *Journal) Checkpoints() []*Record {
	j.whole()
	var out []*Record
	for i, l := range j.lines {
		if l.typ == EventCheckpoint && !l.reused {
			if r := j.Event(i).Checkpoint; r != nil {
				out = append(out, r)
			}
		}
	}
	return out
}

// Latest returns the newest checkpoint, or nil.
func (j *Journal) Latest() *Record {
	for i := len(j.lines) - 1; i >= 0; i-- {
		if l := j.lines[i]; l.typ == EventCheckpoint && !l.reused {
			if r := j.decoded(i).Checkpoint; r != nil {
				return r
			}
		}
	}
	if j.path != "" {
		return j.sum.Latest
	}
	return nil
}

// MaxN returns the highest checkpoint number recorded.
func (j *Journal) MaxN() int {
	n := 0
	if j.path != "" {
		n = j.sum.MaxN
	}
	for _, l := range j.lines {
		if l.typ == EventCheckpoint && !l.reused || l.typ == EventCompacted {
			n = max(n, l.n)
		}
	}
	return n
}

// Numbers returns the numbers of the checkpoints recorded.
func (j *Journal) Numbers() map[int]bool {
	j.whole()
	out := map[int]bool{}
	for _, l := range j.lines {
		if l.typ == EventCheckpoint && !l.reused {
			out[l.n] = true
		}
	}
	return out
}

// MaxTurn returns the highest turn number of any checkpoint record (reuse
// records too), or of the records a compaction dropped; 0 when none has a
// turn.
func (j *Journal) MaxTurn() int {
	n := 0
	if j.path != "" {
		n = j.sum.MaxTurn
	}
	for _, l := range j.lines {
		if l.typ == EventCheckpoint || l.typ == EventCompacted {
			n = max(n, TurnNumber(l.turn))
		}
	}
	return n
}

// HasTurns reports whether any checkpoint record (reuse records too)
// belongs to a turn, from what a look at each line found: decoding every
// line to ask would make a rewind's cost grow with its journal.
func (j *Journal) HasTurns() bool {
	j.whole()
	for _, l := range j.lines {
		if l.typ == EventCheckpoint && l.turn != "" {
			return true
		}
	}
	return false
}

// AnyAgent reports whether any checkpoint record (reuse records too) was
// taken for an agent for which is returns true, from what a look at each
// line found: decoding every line to ask made each rewind's cost grow with
// its journal (docs/speed.md, "A rewind decodes only the lines it reads").
func (j *Journal) AnyAgent(is func(agent string) bool) bool {
	j.whole()
	for _, l := range j.lines {
		if l.typ == EventCheckpoint && is(l.agent) {
			return true
		}
	}
	return false
}

// TurnOf returns the turn of session's newest record that has one, or "".
func (j *Journal) TurnOf(session string) string {
	for i := len(j.lines) - 1; i >= 0; i-- {
		if l := j.lines[i]; l.typ == EventCheckpoint && l.session == session && l.turn != "" {
			return l.turn
		}
	}
	if j.path == "" {
		return ""
	}
	if turn, ok := j.sum.turnOf(session); ok {
		return turn
	}
	j.whole()
	return j.TurnOf(session)
}

// TurnStart returns the record that started turn, or nil. Only that
// turn's lines are decoded, newest first: a turn's end asks, and its
// start is near.
func (j *Journal) TurnStart(turn string) *Record {
	for i := len(j.lines) - 1; i >= 0; i-- {
		if l := j.lines[i]; l.typ == EventCheckpoint && l.turn == turn {
			if r := j.Event(i).Checkpoint; r != nil && r.Reason == ReasonTurnStart {
				return r
			}
		}
	}
	if j.path == "" {
		return nil
	}
	j.whole()
	return j.TurnStart(turn)
}

// ByID finds a checkpoint by its k<n> id: the first record of that id
// that is not a reuse. A record's id is "k" and its number (Record.N), so
// the lines are indexed by the number a look at them finds, without
// decoding them, once; log, the picker and completion ask for every
// turn's start and end.
func (j *Journal) ByID(id string) *Record {
	n, ok := idNumber(id)
	if !ok {
		return nil
	}
	j.whole()
	if j.first == nil {
		j.first = map[int]int{}
	}
	for ; j.indexed < len(j.lines); j.indexed++ {
		l := j.lines[j.indexed]
		if _, seen := j.first[l.n]; !seen && l.typ == EventCheckpoint && !l.reused {
			j.first[l.n] = j.indexed
		}
	}
	i, ok := j.first[n]
	if !ok {
		return nil
	}
	if r := j.Event(i).Checkpoint; r != nil && r.ID == id {
		return r
	}
	return nil
}

// Pruned reports whether the checkpoint with id was pruned.
func (j *Journal) Pruned(id string) bool {
	for p := range j.prunedIDs() {
		if p == id {
			return true
		}
	}
	return false
}

// PrunedIDs returns the ids of every checkpoint that was pruned.
func (j *Journal) PrunedIDs() map[string]bool {
	out := map[string]bool{}
	for id := range j.prunedIDs() {
		out[id] = true
	}
	return out
}

// prunedIDs yields the ids the pruned events name, and those a compacted
// event names for the pruned events it dropped, in order; only those
// lines are decoded.
func (j *Journal) prunedIDs() iter.Seq[string] {
	return func(yield func(string) bool) {
		j.whole()
		for i, l := range j.lines {
			if l.typ != EventPruned && l.typ != EventCompacted {
				continue
			}
			for _, id := range j.Event(i).Pruned {
				if !yield(id) {
					return
				}
			}
		}
	}
}

// Records is the checkpoint records of a journal, reuse records too, in
// the order they were written. What a look at each line found, its
// turn, needs no decoding, and Get decodes a record when it is first
// asked for: a rewind's classification reads every record's turn but
// only the records since its target, where decoding every line made its
// cost grow with the journal.
type Records struct {
	j  *Journal
	at []int // each record's line
}

// Records returns the journal's checkpoint records.
func (j *Journal) Records() Records {
	j.whole()
	r := Records{j: j}
	for i, l := range j.lines {
		if l.typ == EventCheckpoint {
			r.at = append(r.at, i)
		}
	}
	return r
}

// Len returns the number of records.
func (r Records) Len() int { return len(r.at) }

// Turn returns the turn of record i, "" for none.
func (r Records) Turn(i int) string { return r.j.lines[r.at[i]].turn }

// Session returns the session of record i, "" for none.
func (r Records) Session(i int) string { return r.j.lines[r.at[i]].session }

// Agent returns the agent of record i, "" for none.
func (r Records) Agent(i int) string { return r.j.lines[r.at[i]].agent }

// Reused reports whether record i is a reuse record (nothing changed).
func (r Records) Reused(i int) bool { return r.j.lines[r.at[i]].reused }

// Get returns record i. A line that was glanced at decodes (see Event);
// should it not, it stands as a record with nothing in it.
func (r Records) Get(i int) *Record {
	if c := r.j.Event(r.at[i]).Checkpoint; c != nil {
		return c
	}
	return &Record{}
}

// Index returns the position of the first record of the checkpoint id,
// reuse or not, or -1 when there is none.
func (r Records) Index(id string) int {
	if n, ok := idNumber(id); ok {
		for i := range r.at {
			if r.is(i, n, id) {
				return i
			}
		}
	}
	return -1
}

// Is reports whether record i is one of the checkpoint id, decoding it
// only when its number is id's.
func (r Records) Is(i int, id string) bool {
	n, ok := idNumber(id)
	return ok && r.is(i, n, id)
}

func (r Records) is(i, n int, id string) bool {
	return r.j.lines[r.at[i]].n == n && r.Get(i).ID == id
}

// idNumber is the number of the checkpoint id: a record's id is "k" and
// its number (Record.N).
func idNumber(id string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimPrefix(id, "k"))
	return n, strings.HasPrefix(id, "k") && err == nil
}

// LastRewind returns the newest rewind_started event and whether a
// rewind_ended followed it.
func (j *Journal) LastRewind() (started *Rewind, ended bool) {
	j.whole()
	for i := len(j.lines) - 1; i >= 0; i-- {
		switch j.lines[i].typ {
		case EventRewindEnded:
			ended = true
		case EventRewindStarted:
			return j.Event(i).Rewind, ended
		}
	}
	return nil, false
}

package store

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/durable"
	"github.com/git-checkpoint/git-checkpoint/internal/fault"
)

// Compacted is the first event of a compacted journal. It stands for the
// lines the compaction dropped: the highest checkpoint number and turn
// they held (numbers are never reused), the ids that were pruned (in
// Event.Pruned, so that a pruned id is still told from one that never
// was), and the head of the journal it replaced.
type Compacted struct {
	Lines    int    `json:"lines"`              // lines dropped
	MaxN     int    `json:"max_n"`              // highest checkpoint number so far
	MaxTurn  string `json:"max_turn,omitempty"` // highest turn id so far
	Replaced string `json:"replaced"`           // "N HASH", the old journal's head
}

// Compact rewrites the journal without the lines retention made dead
// weight: the records (and reuse records) of pruned checkpoints and the
// pruned events, which a compacted event at the top stands for. Every
// other event is kept, in order, chained anew. Nothing happens when there
// is nothing to drop. The journal is written beside the old one, synced,
// and renamed into place, then its head is written; a crash between the
// two leaves the old head, which the compacted event names (see
// Journal.replaced). The caller holds the lock.
func (s *Store) Compact(j *Journal) (dropped int, err error) {
	if len(j.Problems()) > 0 {
		return 0, nil // a damaged journal is rebuilt first, by the next append
	}
	pruned := map[string]bool{}
	var ids []string
	top := &Compacted{MaxN: j.MaxN()}
	for id := range j.prunedIDs() {
		if !pruned[id] {
			pruned[id] = true
			ids = append(ids, id)
		}
	}
	if n := j.MaxTurn(); n > 0 {
		top.MaxTurn = "t" + strconv.Itoa(n)
	}
	var kept []Event
	for i, l := range j.lines {
		ev := j.Event(i)
		switch {
		case l.typ == EventCompacted:
			continue // merged into the new one
		case l.typ == EventPruned, l.typ == EventCheckpoint && ev.Checkpoint != nil && pruned[ev.Checkpoint.ID]:
			dropped++
			continue
		}
		kept = append(kept, *ev)
	}
	if dropped == 0 {
		return 0, nil
	}
	top.Lines = dropped
	if n := j.lineCount(); n > 0 {
		top.Replaced = fmt.Sprintf("%d %s", n, j.last)
	}
	events := append([]Event{{Type: EventCompacted, At: s.Now().UTC(), Compacted: top, Pruned: ids}}, kept...)
	data, fresh, err := encodeJournal(events)
	if err != nil {
		return 0, err
	}
	path := s.Path("journal.jsonl")
	// The old journal's head is on disk as Replaced names it before the
	// new journal replaces it (syncHead).
	if err := syncHead(path, j); err != nil {
		return 0, fault.Wrap(err, fault.FailedIO, "cannot write the journal's head")
	}
	// The new journal is on disk, renamed over the old, before the head
	// names its last line (and before anything is appended to it).
	if err := durable.WriteFile(path, data); err != nil {
		return 0, fault.Wrap(err, fault.FailedIO, "cannot replace the journal by its compacted copy")
	}
	if err := writeHead(path, fresh); err != nil {
		return 0, fault.Wrap(err, fault.FailedIO, "cannot write the journal's head")
	}
	*j = *fresh
	return dropped, nil
}

// TurnNumber returns n for a turn id "t<n>", or 0.
func TurnNumber(id string) int {
	s, ok := strings.CutPrefix(id, "t")
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

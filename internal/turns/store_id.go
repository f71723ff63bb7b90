package turns

import (
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// InStore reports whether id names a checkpoint of a fetched store,
// "<store-id prefix>:<id in that store>" ("1c1aecbe:k3", "1c1aecbe:t2"),
// and splits it. The colon keeps such ids apart from this tree's own: no
// k<n>, t<n>, @ or commit prefix holds one. The part after it is an id
// Resolve reads against that store's records.
func InStore(id string) (prefix, rest string, ok bool) {
	prefix, rest, ok = strings.Cut(id, ":")
	if !ok || len(prefix) < 4 || len(prefix) > 16 || rest == "" {
		return "", "", false
	}
	for _, c := range prefix {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return "", "", false
		}
	}
	return prefix, rest, true
}

// InStore is the entry as a fetched store's: every id in it (the turn's,
// its start's and end's, its records', a checkpoint's) qualified with the
// store's prefix, so that each one printed names that store's checkpoint
// and never one of this tree's. The entry's records are copied, not
// changed.
func (e Entry) InStore(prefix string) Entry {
	q := func(r *store.Record) *store.Record {
		if r == nil {
			return nil
		}
		c := *r
		c.ID = prefix + ":" + r.ID
		if c.Turn != "" {
			c.Turn = prefix + ":" + r.Turn
		}
		return &c
	}
	e.Checkpoint = q(e.Checkpoint)
	if e.Turn != nil {
		t := *e.Turn
		t.ID = prefix + ":" + t.ID
		t.Start, t.End = q(t.Start), q(t.End)
		t.Records = make([]*store.Record, len(e.Turn.Records))
		for i, r := range e.Turn.Records {
			t.Records[i] = q(r)
		}
		e.Turn = &t
	}
	return e
}

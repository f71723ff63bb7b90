package store

import (
	"path/filepath"
	"strconv"
	"testing"
)

// TestByID checks ByID's index against what it stands for: the first
// record of an id that is not a reuse, a record appended after the index
// was built, and nothing for an id no record has or that is not k<n>.
func TestByID(t *testing.T) {
	rec := func(n int, reused bool, reason string) Event {
		return Event{Type: EventCheckpoint, Checkpoint: &Record{ID: "k" + strconv.Itoa(n), N: n, Reused: reused, Reason: reason}}
	}
	j := NewJournal(rec(1, false, "first"), rec(1, true, "reuse"), rec(2, false, "second"), Event{Type: EventRewindStarted, Rewind: &Rewind{}})
	if r := j.ByID("k1"); r == nil || r.Reason != "first" {
		t.Fatalf("ByID(k1) = %+v, want the record that is not a reuse", r)
	}
	if r := j.ByID("k2"); r == nil || r.Reason != "second" {
		t.Fatalf("ByID(k2) = %+v", r)
	}
	if err := stageJournal(j, rec(3, false, "appended")); err != nil {
		t.Fatal(err)
	}
	if err := flushJournal(filepath.Join(t.TempDir(), "journal.jsonl"), j); err != nil {
		t.Fatal(err)
	}
	if r := j.ByID("k3"); r == nil || r.Reason != "appended" {
		t.Fatalf("ByID(k3) after an append = %+v", r)
	}
	for _, id := range []string{"k4", "k01", "3", "t1", "k", ""} {
		if r := j.ByID(id); r != nil {
			t.Errorf("ByID(%q) = %+v, want none", id, r)
		}
	}
}

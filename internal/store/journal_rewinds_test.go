package store

import (
	"maps"
	"testing"
)

func TestRewindsBy(t *testing.T) {
	cp := func(id, reason string) Event {
		return Event{Type: EventCheckpoint, Checkpoint: &Record{ID: id, Reason: reason}}
	}
	started := func(safety, by string) Event {
		return Event{Type: EventRewindStarted, Rewind: &Rewind{Target: "k1", Safety: safety, By: by}}
	}
	ended := Event{Type: EventRewindEnded, Rewind: &Rewind{Target: "k1"}}
	j := NewJournal(
		cp("k1", ReasonManual),
		// the model's rewind
		cp("k2", ReasonPreRewind), started("k2", ByModel), cp("k3", ReasonRewind), ended,
		// a person's
		cp("k4", ReasonPreRewind), started("k4", ""), cp("k5", ReasonRewind), ended,
		// the model's, which failed before its end checkpoint: the next
		// rewind checkpoint is not its
		cp("k6", ReasonPreRewind), started("k6", ByModel), ended,
		cp("k7", ReasonPreRewind), started("k7", ""), cp("k8", ReasonRewind), ended,
	)
	want := map[string]string{"k2": ByModel, "k3": ByModel, "k6": ByModel}
	if got := j.RewindsBy(); !maps.Equal(got, want) {
		t.Errorf("RewindsBy() = %v, want %v", got, want)
	}
}

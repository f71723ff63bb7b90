package turns

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/gittest"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

func TestHistory(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	rec := func(id, reason, turn, session, prompt string, reused bool) store.Event {
		return store.Event{Type: store.EventCheckpoint, Checkpoint: &store.Record{ID: id, N: int(id[1] - '0'),
			Reason: reason, Turn: turn, Session: session, Agent: "claude", Prompt: prompt, Reused: reused, At: at}}
	}
	j := store.NewJournal(
		rec("k1", store.ReasonTurnStart, "t1", "s1", "add a cache", false),
		rec("k2", store.ReasonTool, "t1", "s1", "", false),
		rec("k3", store.ReasonTurnEnd, "t1", "s1", "", false),
		rec("k4", store.ReasonManual, "", "", "", false),
		rec("k4", store.ReasonTurnStart, "t2", "s2", "", true), // reuses k4; its prompt was not recorded
		rec("k5", store.ReasonTurnEnd, "t2", "s2", "from notify", false),
		rec("k6", store.ReasonTurnStart, "t3", "s1", "still running", false),
	)
	ts := History(j)
	if len(ts) != 3 {
		t.Fatalf("History found %d turns, want 3: %+v", len(ts), ts)
	}
	check := func(i int, id, session, prompt, start, end string, records int) {
		t.Helper()
		tt := ts[i]
		got := func(r *store.Record) string {
			if r == nil {
				return ""
			}
			return r.ID
		}
		if tt.ID != id || tt.Session != session || tt.Prompt != prompt || got(tt.Start) != start || got(tt.End) != end || len(tt.Records) != records {
			t.Errorf("turn %d = %s session %s prompt %q start %s end %s with %d records; want %s %s %q %s %s %d",
				i, tt.ID, tt.Session, tt.Prompt, got(tt.Start), got(tt.End), len(tt.Records), id, session, prompt, start, end, records)
		}
	}
	check(0, "t1", "s1", "add a cache", "k1", "k3", 3)
	check(1, "t2", "s2", "from notify", "k4", "k5", 2)
	check(2, "t3", "s1", "still running", "k6", "", 1)
	if !ts[2].EndedAt.IsZero() {
		t.Errorf("a running turn has an end time")
	}
}

func TestDiff(t *testing.T) {
	repo := gittest.NewRepo(t)
	r := &git.Runner{Dir: repo.Dir, Env: repo.Env}
	tree := func(files map[string]string) string {
		repo.Git("rm", "-rqf", "--ignore-unmatch", ".")
		repo.Write(files)
		repo.Git("add", "-A")
		return repo.Git("write-tree")
	}
	a := tree(map[string]string{"a": "1", "b": "1"})
	b := tree(map[string]string{"a": "2", "c": "1"})
	ts := []Turn{
		{ID: "t1", Start: &store.Record{Tree: a}, End: &store.Record{Tree: b}},
		{ID: "t2", Start: &store.Record{Tree: b}}, // running
		{ID: "t3", Start: &store.Record{Tree: b}, End: &store.Record{Tree: b}},
	}
	diffs, err := Diff(context.Background(), r, ts)
	if err != nil {
		t.Fatal(err)
	}
	if c := store.Count(diffs[0]); c != (store.Changes{Modified: 1, Added: 1, Deleted: 1}) {
		t.Errorf("t1 changes %+v, want 1 of each", c)
	}
	if len(diffs[1]) != 0 || len(diffs[2]) != 0 {
		t.Errorf("a running turn and an empty one have changes: %v, %v", diffs[1], diffs[2])
	}
}

// BenchmarkHistory reads the turns of a journal of 10,000 records in 1,000
// turns (a start, eight tool calls and an end each), as log, the picker
// and completion do.
func BenchmarkHistory(b *testing.B) {
	var evs []store.Event
	for n := 1; n <= 10000; n++ {
		reason := store.ReasonTool
		switch n % 10 {
		case 1:
			reason = store.ReasonTurnStart
		case 0:
			reason = store.ReasonTurnEnd
		}
		evs = append(evs, store.Event{Type: store.EventCheckpoint, Checkpoint: &store.Record{ID: fmt.Sprint("k", n), N: n,
			Reason: reason, Turn: fmt.Sprint("t", (n+9)/10), Session: "s1", Agent: "claude"}})
	}
	j := store.NewJournal(evs...)
	b.ResetTimer()
	for range b.N {
		if ts := History(j); len(ts) != 1000 || ts[999].End == nil {
			b.Fatalf("History found %d turns", len(ts))
		}
	}
}

package store

import (
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"
)

// TestCompactKeepsWhatRetentionKeeps builds random journals (checkpoints,
// reuse records, turns, rewinds, prunes, an earlier compaction), compacts
// them, and checks that the compacted journal answers every question as
// the full one did, except that the pruned records are gone: the highest
// number and turn, what was pruned, the live checkpoints and the newest
// rewind. It also reads the compacted file back, with its own head and
// with the old head a crash before the head's write leaves behind.
func TestCompactKeepsWhatRetentionKeeps(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for iter := 0; iter < 60; iter++ {
		s := &Store{Dir: t.TempDir(), Now: func() time.Time { return now }}
		j := &Journal{}
		n, turn := 0, 0
		var ids []string
		for k := 0; k < 5+rng.IntN(40); k++ {
			var ev Event
			switch x := rng.IntN(10); {
			case x < 5 || n == 0 || j.Latest() == nil:
				n++
				if rng.IntN(3) == 0 {
					turn++
				}
				ev = Event{Type: EventCheckpoint, Checkpoint: &Record{ID: "k" + strconv.Itoa(n), N: n,
					Turn: "t" + strconv.Itoa(turn), Session: "s" + strconv.Itoa(rng.IntN(3)), Skipped: []Skip{}}}
				ids = append(ids, "k"+strconv.Itoa(n))
			case x < 7:
				r := *j.Latest()
				r.Reused, r.Session = true, "s"+strconv.Itoa(rng.IntN(3))
				ev = Event{Type: EventCheckpoint, Checkpoint: &r}
			case x < 8:
				ev = Event{Type: EventRewindStarted, Rewind: &Rewind{Target: ids[rng.IntN(len(ids))], Safety: ids[len(ids)-1]}}
			default:
				ev = Event{Type: EventPruned, Pruned: []string{ids[rng.IntN(len(ids))]}}
			}
			if err := s.Append(j, ev); err != nil {
				t.Fatal(err)
			}
			if rng.IntN(25) == 0 {
				if _, err := s.Compact(j); err != nil {
					t.Fatal(err)
				}
			}
		}
		before := ParseJournal(mustRead(t, s.Path("journal.jsonl")))
		oldHead := mustRead(t, s.Path("journal.jsonl"+headSuffix))
		if _, err := s.Compact(j); err != nil {
			t.Fatal(err)
		}
		after, err := s.Journal()
		if err != nil {
			t.Fatal(err)
		}
		if len(after.Problems()) > 0 {
			t.Fatalf("iteration %d: the compacted journal has problems: %v", iter, after.Problems())
		}
		if after.MaxN() != before.MaxN() || after.MaxTurn() != before.MaxTurn() {
			t.Fatalf("iteration %d: max %d turn %d, before %d and %d", iter, after.MaxN(), after.MaxTurn(), before.MaxN(), before.MaxTurn())
		}
		for _, id := range ids {
			if after.Pruned(id) != before.Pruned(id) {
				t.Fatalf("iteration %d: %s pruned %v, before %v", iter, id, after.Pruned(id), before.Pruned(id))
			}
			if r := before.ByID(id); (r != nil && !before.Pruned(id)) != (after.ByID(id) != nil) {
				t.Fatalf("iteration %d: %s kept %v, want %v", iter, id, after.ByID(id) != nil, r != nil)
			}
		}
		var live []*Record
		for _, r := range before.Checkpoints() {
			if !before.Pruned(r.ID) {
				live = append(live, r)
			}
		}
		r1, e1 := after.LastRewind()
		r2, e2 := before.LastRewind()
		if !reflect.DeepEqual(after.Checkpoints(), live) || !reflect.DeepEqual(r1, r2) || e1 != e2 {
			t.Fatalf("iteration %d: checkpoints or rewind differ after compaction", iter)
		}
		if after.Len() > 0 && after.All()[0].Type == EventCompacted {
			if err := os.WriteFile(s.Path("journal.jsonl"+headSuffix), oldHead, 0o644); err != nil {
				t.Fatal(err)
			}
			crashed, _ := s.Journal()
			if len(crashed.Problems()) > 0 {
				t.Fatalf("iteration %d: the old head beside the compacted journal: %v", iter, crashed.Problems())
			}
			os.WriteFile(s.Path("journal.jsonl"+headSuffix), []byte(fmt.Sprintf("%d %s\n", after.Len()+1, "0123456789abcdef")), 0o644)
			if damaged, _ := s.Journal(); len(damaged.Problems()) == 0 {
				t.Fatalf("iteration %d: a wrong head beside the compacted journal went unnoticed", iter)
			}
		}
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCompactNothingToDrop leaves a journal without pruned records as it
// is, byte for byte.
func TestCompactNothingToDrop(t *testing.T) {
	s := &Store{Dir: t.TempDir(), Now: func() time.Time { return now }}
	j := &Journal{}
	for i := 1; i <= 3; i++ {
		if err := s.Append(j, Event{Type: EventCheckpoint, Checkpoint: &Record{ID: "k" + strconv.Itoa(i), N: i}}); err != nil {
			t.Fatal(err)
		}
	}
	data := mustRead(t, s.Path("journal.jsonl"))
	if dropped, err := s.Compact(j); err != nil || dropped != 0 {
		t.Fatalf("dropped %d: %v", dropped, err)
	}
	if !slices.Equal(mustRead(t, s.Path("journal.jsonl")), data) {
		t.Fatal("a compaction with nothing to drop rewrote the journal")
	}
}

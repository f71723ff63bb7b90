package store

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
	"time"
)

// FuzzParseJournal feeds ParseJournal arbitrary bytes. It must never
// panic or fail; whatever it keeps must be usable (typed events,
// checkpoints with records); and the journal Rebuild would write from what
// it kept must parse back whole, with the same events and no problems.
func FuzzParseJournal(f *testing.F) {
	for _, seed := range journalSeeds(f) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		j := ParseJournal(data)
		for i, ev := range j.Events {
			if ev.Type == "" {
				t.Fatalf("event %d has no type", i)
			}
			if ev.Type == EventCheckpoint && ev.Checkpoint == nil {
				t.Fatalf("event %d is a checkpoint without a record", i)
			}
		}
		// Problems are one line each, for doctor's report.
		for _, p := range j.Problems {
			if bytes.ContainsAny([]byte(p), "\n\r") {
				t.Fatalf("problem spans lines: %q", p)
			}
		}
		j.Checkpoints()
		j.Latest()
		j.MaxN()
		j.LastRewind()

		// What Rebuild would write from the events kept parses back
		// whole: the same events, chained, no problems.
		again, _, err := encodeJournal(j.Events)
		if err != nil {
			t.Fatalf("the kept events do not encode: %v", err)
		}
		back := ParseJournal(again)
		if len(back.Problems) > 0 || len(back.Events) != len(j.Events) {
			t.Fatalf("re-chained, %d events parse back as %d, problems %v", len(j.Events), len(back.Events), back.Problems)
		}
		for i := range back.Events {
			if back.Events[i].Type != j.Events[i].Type {
				t.Fatalf("event %d was %s, is %s", i, j.Events[i].Type, back.Events[i].Type)
			}
		}
	})
}

// journalSeeds are journals a store wrote, and damaged copies of them.
func journalSeeds(f *testing.F) [][]byte {
	dir := f.TempDir()
	s := &Store{Dir: dir, Now: func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }}
	j := &Journal{}
	for _, ev := range []Event{
		{Type: EventCheckpoint, Checkpoint: &Record{ID: "k1", N: 1, Commit: "c1", Tree: "t1", Reason: ReasonManual, Skipped: []Skip{}}},
		{Type: EventCheckpoint, Checkpoint: &Record{ID: "k2", N: 2, Commit: "c2", Tree: "t2", Reason: "turn_end", Turn: "t1",
			Skipped: []Skip{{Path: "big\nfile", Bytes: 1 << 30, Reason: SkipTooBig}}}},
		{Type: EventRewindStarted, Rewind: &Rewind{Target: "k1", Commit: "c1", Safety: "k3", Plan: "p1-0123456789abcdef", Files: 2}},
		{Type: EventPruned, Pruned: []string{"k1"}},
	} {
		if err := s.Append(j, ev); err != nil {
			f.Fatal(err)
		}
	}
	good, err := os.ReadFile(s.Path("journal.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	lines := bytes.SplitAfter(good, []byte("\n"))
	edited := bytes.Replace(good, []byte(`"k1"`), []byte(`"k9"`), 1)
	rec, _ := json.Marshal(Event{Type: EventCheckpoint})
	return [][]byte{
		good,
		good[:len(good)-7],         // cut short
		bytes.Join(lines[1:], nil), // first line gone
		append(append([]byte{}, lines[1]...), lines[0]...), // reordered
		edited,
		append(append([]byte{}, good...), "{not json\n"...),
		append(rec, '\n'),
		[]byte("\n\n\n"),
		[]byte(`{"type":"checkpoint","checkpoint":{"n":"x"}}` + "\n"),
		[]byte{0xff, 0xfe, '\n', 0},
		{},
	}
}

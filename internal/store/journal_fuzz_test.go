package store

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"
)

// FuzzParseJournal feeds ParseJournal arbitrary bytes. It must never
// panic or fail; whatever it keeps must be usable (typed events,
// checkpoints with records); it must tell exactly what decoding every
// line tells (the same events, problems, chain and answers), although it
// decodes only what it needs; and the journal Rebuild would write from
// what it kept must parse back whole, with the same events and no
// problems.
func FuzzParseJournal(f *testing.F) {
	for _, seed := range journalSeeds(f) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		j := ParseJournal(data)
		sameAsDecoded(t, j, decodeAll(data))
		events := j.All()
		for i, ev := range events {
			if ev.Type == "" {
				t.Fatalf("event %d has no type", i)
			}
			if ev.Type == EventCheckpoint && ev.Checkpoint == nil {
				t.Fatalf("event %d is a checkpoint without a record", i)
			}
		}
		// Problems are one line each, for doctor's report.
		for _, p := range j.Problems() {
			if bytes.ContainsAny([]byte(p), "\n\r") {
				t.Fatalf("problem spans lines: %q", p)
			}
		}

		// What Rebuild would write from the events kept parses back
		// whole: the same events, chained, no problems.
		again, _, err := encodeJournal(events)
		if err != nil {
			t.Fatalf("the kept events do not encode: %v", err)
		}
		back := ParseJournal(again)
		if len(back.Problems()) > 0 || back.Len() != len(events) {
			t.Fatalf("re-chained, %d events parse back as %d, problems %v", len(events), back.Len(), back.Problems())
		}
		for i, ev := range back.All() {
			if ev.Type != events[i].Type {
				t.Fatalf("event %d was %s, is %s", i, events[i].Type, ev.Type)
			}
		}
	})
}

// sameAsDecoded checks that a journal read by ParseJournal answers as the
// journal every line of which was decoded.
func sameAsDecoded(t *testing.T, j, want *Journal) {
	t.Helper()
	if !slices.Equal(j.Problems(), want.Problems()) || !slices.Equal(j.hashes, want.hashes) || j.last != want.last {
		t.Fatalf("problems %q, chain %v %s; decoded: %q, %v %s", j.Problems(), j.hashes, j.last, want.Problems(), want.hashes, want.last)
	}
	if j.MaxN() != want.MaxN() || j.MaxTurn() != want.MaxTurn() || !maps.Equal(j.Numbers(), want.Numbers()) {
		t.Fatalf("max %d, turn %d, numbers %v; decoded: %d, %d, %v", j.MaxN(), j.MaxTurn(), j.Numbers(), want.MaxN(), want.MaxTurn(), want.Numbers())
	}
	turns := false // any checkpoint record of a turn, from decoded events
	for _, ev := range want.All() {
		if c := ev.Checkpoint; ev.Type == EventCheckpoint && c != nil && c.Turn != "" {
			turns = true
		}
	}
	if j.HasTurns() != turns {
		t.Fatalf("has turns %v; decoded: %v", j.HasTurns(), turns)
	}
	for _, l := range want.lines {
		is := func(a string) bool { return a == l.agent }
		if j.AnyAgent(is) != want.AnyAgent(is) {
			t.Fatalf("agent %q found %v; decoded: %v", l.agent, j.AnyAgent(is), want.AnyAgent(is))
		}
		if j.TurnOf(l.session) != want.TurnOf(l.session) {
			t.Fatalf("session %q is in turn %q; decoded: %q", l.session, j.TurnOf(l.session), want.TurnOf(l.session))
		}
	}
	if !reflect.DeepEqual(j.Latest(), want.Latest()) || !reflect.DeepEqual(j.Checkpoints(), want.Checkpoints()) {
		t.Fatalf("latest %+v; decoded: %+v", j.Latest(), want.Latest())
	}
	r1, e1 := j.LastRewind()
	r2, e2 := want.LastRewind()
	if !reflect.DeepEqual(r1, r2) || e1 != e2 {
		t.Fatalf("last rewind %+v %v; decoded: %+v %v", r1, e1, r2, e2)
	}
	if !reflect.DeepEqual(j.All(), want.All()) {
		t.Fatalf("events %+v; decoded: %+v", j.All(), want.All())
	}
}

// TestParseJournalDecodesOnlyTheTail checks the point of ParseJournal's
// glance: in a whole journal of many lines, only the newest are decoded
// until something needs the others, and what a hook asks needs only the
// newest checkpoint, which Latest returns whole.
func TestParseJournalDecodesOnlyTheTail(t *testing.T) {
	var events []Event
	for i := 1; i <= 1000; i++ {
		r := &Record{ID: "k" + strconv.Itoa(i), N: i, Reason: ReasonTool, Turn: "t" + strconv.Itoa(i/10),
			Session: "s" + strconv.Itoa(i%3), Skipped: []Skip{}, Label: `a "quoted" \ label, "n":7`}
		events = append(events, Event{Type: EventCheckpoint, Checkpoint: r})
		if i%100 == 0 {
			events = append(events, Event{Type: EventCheckpoint, Checkpoint: &Record{ID: r.ID, N: r.N, Reused: true, Turn: r.Turn}})
		}
	}
	events = append(events, Event{Type: EventPruned, Pruned: []string{"k1"}})
	data, _, err := encodeJournal(events)
	if err != nil {
		t.Fatal(err)
	}
	j := ParseJournal(data)
	decoded := func() int {
		n := 0
		for _, l := range j.lines {
			if l.ev != nil {
				n++
			}
		}
		return n
	}
	if got := decoded(); got != decodedTail {
		t.Fatalf("%d lines decoded on reading, want %d", got, decodedTail)
	}
	if j.MaxN() != 1000 || j.Latest().ID != "k1000" || j.TurnOf("s1") != "t100" || j.MaxTurn() != 100 {
		t.Fatalf("max %d latest %s turn of s1 %s", j.MaxN(), j.Latest().ID, j.TurnOf("s1"))
	}
	if rw, _ := j.LastRewind(); rw != nil {
		t.Fatalf("a rewind found: %+v", rw)
	}
	if got := decoded(); got != decodedTail+1 {
		t.Fatalf("%d lines decoded after a hook's questions, want %d", got, decodedTail+1)
	}
	// A rewind's questions: whether an agent that takes notes recorded
	// anything, every record's turn, the records since its target and the
	// pruned ids decode only those two records (the pruned event, the
	// newest line, was decoded on reading).
	if j.AnyAgent(func(a string) bool { return a != "" }) {
		t.Fatal("an agent found where no record names one")
	}
	recs := j.Records()
	if recs.Len() != 1010 || recs.Turn(0) != "t0" || recs.Turn(1009) != "t100" {
		t.Fatalf("%d records, turns %q..%q", recs.Len(), recs.Turn(0), recs.Turn(recs.Len()-1))
	}
	i := recs.Index("k995")
	if i != 1003 || recs.Get(i).ID != "k995" || recs.Get(i+1).ID != "k996" || recs.Index("k1001") != -1 {
		t.Fatalf("k995 at %d", i)
	}
	if p := j.PrunedIDs(); len(p) != 1 || !p["k1"] {
		t.Fatalf("pruned %v", p)
	}
	if got := decoded(); got != decodedTail+3 {
		t.Fatalf("%d lines decoded after a rewind's questions, want %d", got, decodedTail+3)
	}
	sameAsDecoded(t, j, decodeAll(data))
}

// journalSeeds are journals a store wrote, and damaged copies of them.
func journalSeeds(f *testing.F) [][]byte {
	dir := f.TempDir()
	s := &Store{Dir: dir, Now: func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }}
	j := &Journal{}
	for _, ev := range []Event{
		{Type: EventCompacted, Pruned: []string{"k0"}, Compacted: &Compacted{Lines: 2, MaxN: 9, MaxTurn: "t4", Replaced: "2 0123456789abcdef"}},
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

// FuzzGlance writes journal lines holding arbitrary strings where
// people's and agents' text goes, and checks that the look at their bytes
// (what ParseJournal reads of the lines it does not decode) finds what
// decoding them finds: the type, the checkpoint's number, turn, session,
// agent and reuse, and the prev field.
func FuzzGlance(f *testing.F) {
	f.Add("t1", "session", "label", "src/a.go", "turn_start", 3, false)
	f.Add(`t"2`, `"n":5,"turn":"t9"`, `\"reused\":true`, "\x00\u2028", "tool", 0, true)
	f.Fuzz(func(t *testing.T, turn, session, label, path, reason string, n int, reused bool) {
		first := &Record{ID: "k" + strconv.Itoa(n), N: n, Turn: turn, Session: session, Agent: reason, Label: label,
			Paths: []string{path}, Reason: reason, Reused: reused, Skipped: []Skip{{Path: path, Reason: label}},
			Submodules: []Submodule{{Path: session, Commit: turn}}}
		events := []Event{{Type: EventCompacted, Pruned: []string{label}, Compacted: &Compacted{MaxN: n, MaxTurn: turn, Replaced: session}},
			{Type: EventCheckpoint, Checkpoint: first},
			{Type: EventRewindStarted, Rewind: &Rewind{Target: label, Error: session}},
			{Type: EventPruned, Pruned: []string{label, turn}}}
		data, _, err := encodeJournal(events)
		if err != nil {
			t.Fatal(err)
		}
		for i, raw := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
			looked, want := &line{raw: raw}, &line{raw: raw}
			if _, err := want.decode(); err != nil || !looked.glance() {
				t.Fatalf("line %d does not decode (%v): %s", i+1, err, raw)
			}
			if looked.typ != want.typ || looked.n != want.n || looked.turn != want.turn ||
				looked.session != want.session || looked.agent != want.agent || looked.reused != want.reused {
				t.Fatalf("line %d: looked %+v, decoded %+v", i+1, *looked, *want)
			}
			if prev, ok := prevOf(raw); !ok || prev != want.ev.Prev {
				t.Fatalf("line %d: prev %q %v, decoded %q", i+1, prev, ok, want.ev.Prev)
			}
		}
		sameAsDecoded(t, ParseJournal(data), decodeAll(data))
	})
}

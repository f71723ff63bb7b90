package store

import (
	"bytes"
	"math/rand/v2"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// FuzzSummary appends random journals through a store, which writes a
// summary every summaryEvery lines, and reads them back after every
// append: what a hook asks (the newest checkpoint, the highest number and
// turn, each session's turn) is answered from the summary as the whole
// journal answers it, and once every line is read everything else is
// too. Sessions outnumber summarySessions, so some are dropped from it.
func FuzzSummary(f *testing.F) {
	f.Add(uint64(1), uint8(0))
	f.Add(uint64(2), uint8(40))
	f.Add(uint64(3), uint8(5))
	f.Fuzz(func(t *testing.T, seed uint64, sessions uint8) {
		rng := rand.New(rand.NewPCG(seed, seed))
		s := &Store{Dir: t.TempDir(), Now: func() time.Time { return now }}
		j := &Journal{}
		n, turn, summarized := 0, 0, 0
		for i := 0; i < 3*summaryEvery+10; i++ {
			if err := s.Append(j, randomEvent(rng, &n, &turn, int(sessions)+1)); err != nil {
				t.Fatal(err)
			}
			read, err := s.Journal()
			if err != nil {
				t.Fatal(err)
			}
			if read.path != "" {
				summarized++
			}
			data := mustRead(t, s.Path("journal.jsonl"))
			want := decodeAll(data)
			if read.MaxN() != want.MaxN() || read.MaxTurn() != want.MaxTurn() || read.last != want.last || read.lineCount() != len(want.hashes) {
				t.Fatalf("line %d: max %d turn %d last %s lines %d; whole: %d %d %s %d", i+1, read.MaxN(), read.MaxTurn(),
					read.last, read.lineCount(), want.MaxN(), want.MaxTurn(), want.last, len(want.hashes))
			}
			if !reflect.DeepEqual(read.Latest(), want.Latest()) {
				t.Fatalf("line %d: latest %+v; whole: %+v", i+1, read.Latest(), want.Latest())
			}
			for k := range int(sessions) + 2 {
				if got, w := read.TurnOf(session(k)), want.TurnOf(session(k)); got != w {
					t.Fatalf("line %d: session %s in turn %q; whole: %q", i+1, session(k), got, w)
				}
			}
			sameAsDecoded(t, read, want)
		}
		if summarized < 2*summaryEvery {
			t.Fatalf("only %d reads of %d came from a summary", summarized, 3*summaryEvery+10)
		}
	})
}

func session(k int) string { return "s" + strconv.Itoa(k) }

// randomEvent is a checkpoint (of a turn or not, reused or not, of one
// of sessions sessions or none) or, now and then, another event.
func randomEvent(rng *rand.Rand, n, turn *int, sessions int) Event {
	switch rng.IntN(20) {
	case 0:
		return Event{Type: EventPruned, Pruned: []string{"k" + strconv.Itoa(rng.IntN(*n+1))}}
	case 1:
		return Event{Type: EventRewindStarted, Rewind: &Rewind{Target: "k1", Safety: "k" + strconv.Itoa(*n)}}
	case 2:
		return Event{Type: EventRewindEnded, Rewind: &Rewind{Target: "k1"}}
	}
	r := &Record{Reason: ReasonTool, Skipped: []Skip{}, Reused: *n > 0 && rng.IntN(3) == 0}
	if !r.Reused {
		*n++
	}
	r.N, r.ID = *n, "k"+strconv.Itoa(*n)
	if rng.IntN(4) > 0 {
		r.Session = session(rng.IntN(sessions))
	}
	switch rng.IntN(5) {
	case 0:
		*turn++
		r.Turn = "t" + strconv.Itoa(*turn)
	case 1, 2:
		r.Turn = "t" + strconv.Itoa(rng.IntN(*turn+1))
	}
	return Event{Type: EventCheckpoint, Checkpoint: r}
}

// longJournal appends lines checkpoints of one session's turns through a
// store, and returns it with the journal's bytes.
func longJournal(t *testing.T, lines int) (*Store, []byte) {
	t.Helper()
	s := &Store{Dir: t.TempDir(), Now: func() time.Time { return now }}
	j := &Journal{}
	for i := 1; i <= lines; i++ {
		r := &Record{ID: "k" + strconv.Itoa(i), N: i, Turn: "t" + strconv.Itoa(i/10), Session: "s", Reason: ReasonTool, Skipped: []Skip{}}
		if err := s.Append(j, Event{Type: EventCheckpoint, Checkpoint: r}); err != nil {
			t.Fatal(err)
		}
	}
	return s, mustRead(t, s.Path("journal.jsonl"))
}

// TestHookReadsTheLinesAfterTheSummary checks the point of the summary:
// what a hook asks of a journal of a thousand lines is answered from the
// lines after the summary, fewer than summaryEvery, without reading the
// others or holding them in memory; a question about every line then
// reads them.
func TestHookReadsTheLinesAfterTheSummary(t *testing.T) {
	s, data := longJournal(t, 1000)
	j, err := s.Journal()
	if err != nil {
		t.Fatal(err)
	}
	if j.path == "" || len(j.lines) >= summaryEvery || j.base+len(j.lines) != 1000 {
		t.Fatalf("read whole or from no summary: %d lines after a summary of %d", len(j.lines), j.base)
	}
	if len(j.tail) > len(data)/10 {
		t.Fatalf("%d bytes of %d kept in memory", len(j.tail), len(data))
	}
	if j.MaxN() != 1000 || j.Latest().ID != "k1000" || j.TurnOf("s") != "t100" || j.MaxTurn() != 100 || j.TurnOf("new") != "" {
		t.Fatalf("max %d latest %s turn %s", j.MaxN(), j.Latest().ID, j.TurnOf("s"))
	}
	if j.path == "" || len(j.lines) >= summaryEvery {
		t.Fatal("a hook's questions read every line")
	}
	if j.Len() != 1000 || j.path != "" {
		t.Fatalf("%d events once every line is read", j.Len())
	}
	sameAsDecoded(t, j, decodeAll(data))
}

// TestSummaryThatDoesNotCheck checks that a summary is believed only
// while it describes the journal: an edit to a line it stands for, a
// summary cut short or flipped, one that ends past the journal, and the
// summary of a journal since replaced each leave the journal read whole,
// with what is wrong with it reported as without a summary.
func TestSummaryThatDoesNotCheck(t *testing.T) {
	for _, tc := range []struct {
		name     string
		damage   func(t *testing.T, journal, summary string)
		problems string
	}{
		{"an older line edited", func(t *testing.T, journal, _ string) {
			edit(t, journal, func(b []byte) []byte { return bytes.Replace(b, []byte(`"turn":"t1"`), []byte(`"turn":"t7"`), 1) })
		}, "line 11 does not follow line 10"},
		{"the summary's last line edited", func(t *testing.T, journal, summary string) {
			end := parseSummary(mustRead(t, summary)).End
			edit(t, journal, func(b []byte) []byte {
				i := bytes.LastIndex(b[:end], []byte(`"session":"s"`))
				return append(append(b[:i:i], `"session":"x"`...), b[i+len(`"session":"s"`):]...)
			})
		}, "does not follow"},
		{"the summary cut short", func(t *testing.T, _, summary string) {
			edit(t, summary, func(b []byte) []byte { return b[:len(b)/2] })
		}, ""},
		{"a byte of the summary flipped", func(t *testing.T, _, summary string) {
			edit(t, summary, func(b []byte) []byte { return bytes.Replace(b, []byte(`"max_n":`), []byte(`"max_n":9`), 1) })
		}, ""},
		{"the journal cut before the summary's end", func(t *testing.T, journal, _ string) {
			edit(t, journal, func(b []byte) []byte { return b[:bytes.Index(b, []byte("\n"))+1] })
		}, "truncated"},
		{"the journal replaced", func(t *testing.T, journal, _ string) {
			data, _, err := encodeJournal([]Event{{Type: EventCheckpoint, Checkpoint: &Record{ID: "k1", N: 1, Skipped: []Skip{}}}})
			if err != nil {
				t.Fatal(err)
			}
			edit(t, journal, func([]byte) []byte { return bytes.Repeat(data, 200) })
		}, "does not follow"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := longJournal(t, 150)
			journal := s.Path("journal.jsonl")
			tc.damage(t, journal, journal+summarySuffix)
			data := mustRead(t, journal)
			j, err := s.Journal()
			if err != nil {
				t.Fatal(err)
			}
			if j.path != "" {
				t.Fatal("read from a summary that does not check")
			}
			want := readWhole(data, mustRead(t, journal+headSuffix))
			sameAsDecoded(t, j, want)
			if got := strings.Join(j.Problems(), "; "); tc.problems == "" && got != "" || !strings.Contains(got, tc.problems) {
				t.Fatalf("problems %q, want %q", got, tc.problems)
			}
		})
	}
}

// TestWholeAfterAppends checks that the lines a summary stood for are read
// in front of the lines appended since the journal was read, and that
// should the file have changed meanwhile (a line edited under the
// command), the journal is what the file then holds, read as without a
// summary, its problems reported, the line appended since still last.
func TestWholeAfterAppends(t *testing.T) {
	for _, changed := range []bool{false, true} {
		s, _ := longJournal(t, 100)
		j, err := s.Journal()
		if err != nil || j.path == "" {
			t.Fatalf("not read from its summary: %v", err)
		}
		if changed {
			edit(t, s.Path("journal.jsonl"), func(b []byte) []byte { b[3] = 'x'; return b })
		}
		if err := s.Append(j, Event{Type: EventPruned, Pruned: []string{"k1"}}); err != nil {
			t.Fatal(err)
		}
		if got := len(j.Problems()); (got > 0) != changed {
			t.Fatalf("changed %v: problems %q", changed, j.Problems())
		}
		events := 101
		if changed {
			events-- // line 1 no longer parses
		}
		if !j.Pruned("k1") || j.Len() != events || j.lineCount() != 101 || j.All()[events-1].Type != EventPruned {
			t.Fatalf("changed %v: %d events, %d lines, k1 pruned %v", changed, j.Len(), j.lineCount(), j.Pruned("k1"))
		}
	}
}

// edit rewrites the file at path by change.
func edit(t *testing.T, path string, change func([]byte) []byte) {
	t.Helper()
	if err := os.WriteFile(path, change(mustRead(t, path)), 0o644); err != nil {
		t.Fatal(err)
	}
}

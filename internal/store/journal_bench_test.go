package store

import (
	"fmt"
	"os"
	"testing"
	"time"
)

// BenchmarkParseJournal reads a journal of 10,000 tool-call records and
// asks what a hook asks (the newest record, the highest number, the turn
// of a session), from the bytes and then from the file with its summary,
// then what a rewind asks (every event).
func BenchmarkParseJournal(b *testing.B) {
	var evs []Event
	for i := 1; i <= 10000; i++ {
		evs = append(evs, Event{Type: EventCheckpoint, At: time.Now(), Checkpoint: &Record{ID: fmt.Sprint("k", i), N: i,
			Commit: "0123456789012345678901234567890123456789", Tree: "0123456789012345678901234567890123456789",
			Head: "0123456789012345678901234567890123456789", Branch: "main", Reason: "tool", Turn: "t12",
			Session: "3f2a1c9e-1111-2222-3333-444455556666", Agent: "claude", Tool: "Write", Paths: []string{"src/main.go"},
			At: time.Now(), Transcript: "/home/u/.claude/projects/x/3f2a1c9e.jsonl", Changes: Changes{Modified: 1}, Partial: true}})
	}
	data, _, _ := encodeJournal(evs)
	b.Logf("%d bytes", len(data))
	b.ResetTimer()
	b.Run("hook", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			j := ParseJournal(data)
			j.Latest()
			j.MaxN()
			j.TurnOf("3f2a1c9e-1111-2222-3333-444455556666")
		}
	})
	b.Run("hook from the summary", func(b *testing.B) {
		s := &Store{Dir: b.TempDir(), Now: time.Now}
		if err := os.WriteFile(s.Path("journal.jsonl"), data, 0o644); err != nil {
			b.Fatal(err)
		}
		j, err := s.Journal()
		if err == nil {
			err = s.Append(j, Event{Type: EventPruned, Pruned: []string{"k1"}}) // writes the summary
		}
		if err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			j, err := s.Journal()
			if err != nil || j.path == "" {
				b.Fatalf("not read from its summary: %v", err)
			}
			j.Latest()
			j.MaxN()
			j.TurnOf("3f2a1c9e-1111-2222-3333-444455556666")
		}
	})
	b.Run("all", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			ParseJournal(data).All()
		}
	})
}

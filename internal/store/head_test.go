package store

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHeadWrittenInPlace checks that an append overwrites the head file in
// place, the same inode, with a head of headSize bytes that reads back as
// the journal's last line: a file renamed over it made and freed an inode
// each capture. A head of another length (an older one, or a damaged one)
// is cut to the new one's, and a head that names a line the journal lacks
// is still caught.
func TestHeadWrittenInPlace(t *testing.T) {
	s := &Store{Dir: t.TempDir(), Now: func() time.Time { return now }}
	head := s.Path("journal.jsonl" + headSuffix)
	j := &Journal{}
	rec := func(n int) Event {
		return Event{Type: EventCheckpoint, Checkpoint: &Record{ID: "k" + strconv.Itoa(n), N: n, Skipped: []Skip{}}}
	}
	if err := s.Append(j, rec(1)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(head, []byte(strings.Repeat("x", 3*headSize)), 0o644); err != nil {
		t.Fatal(err)
	}
	inode := func() uint64 {
		fi, err := os.Stat(head)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() != headSize {
			t.Fatalf("head of %d bytes, want %d", fi.Size(), headSize)
		}
		return fi.Sys().(*syscall.Stat_t).Ino
	}
	if err := s.Append(j, rec(2)); err != nil {
		t.Fatal(err)
	}
	first := inode()
	for n := 3; n <= 5; n++ {
		if err := s.Append(j, rec(n)); err != nil {
			t.Fatal(err)
		}
		if got := inode(); got != first {
			t.Fatalf("append %d replaced the head file (inode %d, was %d)", n, got, first)
		}
	}
	read, err := s.Journal()
	if err != nil || len(read.Problems()) > 0 || read.Len() != 5 {
		t.Fatalf("read back: %d events, problems %q, %v", read.Len(), read.Problems(), err)
	}
	// The head now names a line beyond the journal's end: truncated.
	data := mustRead(t, s.Path("journal.jsonl"))
	cut := data[:strings.LastIndex(strings.TrimSuffix(string(data), "\n"), "\n")+1]
	if err := os.WriteFile(s.Path("journal.jsonl"), cut, 0o644); err != nil {
		t.Fatal(err)
	}
	read, err = s.Journal()
	if err != nil || len(read.Problems()) != 1 || !strings.Contains(read.Problems()[0], "truncated") {
		t.Fatalf("cut journal read with problems %q, %v", read.Problems(), err)
	}
}

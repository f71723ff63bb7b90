package turns

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// fuzzJournal is a small store: k1 and k2 in turn t1, k3 at the start of
// t2 whose ref moved, k4 whose ref was deleted, and two commits sharing a
// four-digit prefix.
func fuzzJournal() (*store.Journal, map[int]string) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	recs := []*store.Record{
		{ID: "k1", N: 1, Commit: "abcd1111aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", Reason: "turn_start", Turn: "t1", At: at},
		{ID: "k2", N: 2, Commit: "abcd2222bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", Reason: "turn_end", Turn: "t1", At: at},
		{ID: "k3", N: 3, Commit: "0123456789abcdef0123456789abcdef01234567", Reason: "turn_start", Turn: "t2", At: at},
		{ID: "k4", N: 4, Commit: "fedcba9876543210fedcba9876543210fedcba98", Reason: "manual", At: at},
	}
	var events []store.Event
	for _, r := range recs {
		events = append(events, store.Event{Type: store.EventCheckpoint, Checkpoint: r})
	}
	j := store.NewJournal(events...)
	refs := map[int]string{1: recs[0].Commit, 2: recs[1].Commit, 3: "9999999999999999999999999999999999999999"}
	return j, refs
}

// FuzzResolve feeds resolve arbitrary ids. It must never panic, and it
// must only ever return a checkpoint whose ref still points at its commit
// and that the id names; anything else is not_found, ambiguous or no id at all.
func FuzzResolve(f *testing.F) {
	for _, id := range []string{"k1", "k2", "k3", "k4", "k5", "t1", "t2", "t3", "@", "abcd", "abcd1", "0123",
		"ABCD2222", "k0", "k01", "k999999999999999999", "k18446744073709551616", "t-1", "", " k1", "k1\n",
		"k1 ", "@@", "HEAD", "-k1", "../k1", "k\x00", "\xff\xfe", "ｋ１", strings.Repeat("a", 65), "fedcba98"} {
		f.Add(id)
	}
	j, refs := fuzzJournal()
	f.Fuzz(func(t *testing.T, id string) {
		r, err := Resolve(j, refs, id)
		if err != nil {
			var fe *fault.Error
			if !errors.As(err, &fe) || (fe.Code != "not_found.checkpoint" && fe.Code != "invalid.ambiguous_id" && fe.Code != "invalid.checkpoint_id") {
				t.Fatalf("Resolve(%q): %v, not a not_found or ambiguous error", id, err)
			}
			if strings.ContainsAny(fe.Message, "\n\r") {
				t.Fatalf("Resolve(%q): the message spans lines: %q", id, fe.Message)
			}
			return
		}
		if refs[r.N] != r.Commit {
			t.Fatalf("Resolve(%q) returned %s, whose ref does not point at its commit", id, r.ID)
		}
		switch {
		case id == "@":
			if r.ID != "k2" {
				t.Fatalf("@ is %s, want the newest live checkpoint k2", r.ID)
			}
		case strings.HasPrefix(id, "k"):
			if r.ID != id {
				t.Fatalf("Resolve(%q) returned %s", id, r.ID)
			}
		case strings.HasPrefix(id, "t"):
			if r.Turn != id {
				t.Fatalf("Resolve(%q) returned %s of turn %s", id, r.ID, r.Turn)
			}
		default:
			if len(id) < 4 || !strings.HasPrefix(r.Commit, strings.ToLower(id)) {
				t.Fatalf("Resolve(%q) returned %s, commit %s", id, r.ID, r.Commit)
			}
		}
	})
}

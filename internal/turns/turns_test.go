package turns

import (
	"fmt"
	"slices"
	"strconv"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// rec is a compact description of one capture: "k1 turn_start t1 s1".
type rec struct {
	id, reason, turn, session string
	paths                     []string
}

// journal builds a journal whose checkpoint k<n> has tree "T<n>"; a
// repeated id is a reuse record; reason "partial" is a partial tool
// capture.
func journal(recs ...rec) *store.Journal {
	var events []store.Event
	seen := map[string]bool{}
	for _, r := range recs {
		if r.reason == "pruned" {
			events = append(events, store.Event{Type: store.EventPruned, Pruned: []string{r.id}})
			continue
		}
		n, _ := strconv.Atoi(r.id[1:])
		reason, partial := r.reason, r.reason == "partial"
		if partial {
			reason = store.ReasonTool
		}
		events = append(events, store.Event{Type: store.EventCheckpoint, Checkpoint: &store.Record{
			ID: r.id, N: n, Tree: "T" + r.id[1:], Reason: reason, Turn: r.turn, Session: r.session,
			Paths: r.paths, Reused: seen[r.id], Partial: partial,
		}})
		seen[r.id] = true
	}
	return store.NewJournal(events...)
}

// kinds prints each window as "FROM>TO:kind".
func kinds(ws []window) []string {
	var out []string
	for _, w := range ws {
		k := map[kind]string{gap: "gap", turnWindow: "turn", rewindWindow: "rewind"}[w.kind]
		if w.outside {
			k = "outside"
		}
		if len(w.named) > 0 {
			k += fmt.Sprint(w.named)
		}
		out = append(out, w.from+">"+w.to+":"+k)
	}
	return out
}

func check(t *testing.T, j *store.Journal, target string, want ...string) {
	t.Helper()
	got := kinds(windows(j, j.ByID(target), nil, "S"))
	if !slices.Equal(got, want) {
		t.Errorf("windows from %s:\n got %q\nwant %q", target, got, want)
	}
}

func TestNumbering(t *testing.T) {
	j := journal(rec{"k1", "manual", "", "", nil})
	if got := Next(j); got != "t1" {
		t.Errorf("Next of a journal without turns = %s, want t1", got)
	}
	j = journal(
		rec{"k1", "turn_start", "t1", "a", nil},
		rec{"k2", "turn_start", "t2", "b", nil},
		rec{"k3", "turn_end", "t1", "a", nil},
		rec{"k4", "manual", "", "", nil},
	)
	if got := Next(j); got != "t3" {
		t.Errorf("Next = %s, want t3", got)
	}
	if got := Current(j, "a"); got != "t1" {
		t.Errorf("Current(a) = %s, want t1 (still current after its end)", got)
	}
	if got := Current(j, "b"); got != "t2" {
		t.Errorf("Current(b) = %s, want t2", got)
	}
	if got := Current(j, "c"); got != "" {
		t.Errorf("Current of an unknown session = %q", got)
	}
	if Number("t12") != 12 || Number("k12") != 0 || Number("t") != 0 {
		t.Errorf("Number parses t<n> only")
	}
}

func TestLatestStarts(t *testing.T) {
	j := journal(
		rec{"k1", "turn_start", "t1", "a", nil},
		rec{"k2", "turn_end", "t1", "a", nil},
		rec{"k2", "turn_start", "t2", "a", nil}, // reused
		rec{"k3", "run_start", "t3", "run-1", nil},
	)
	var ids []string
	for r := range LatestStarts(j) {
		ids = append(ids, r.ID)
	}
	if !slices.Equal(ids, []string{"k3", "k2", "k1"}) {
		t.Errorf("LatestStarts = %q", ids)
	}
}

func TestPersonBetweenTurns(t *testing.T) {
	j := journal(
		rec{"k1", "turn_start", "t1", "a", nil},
		rec{"k2", "tool", "t1", "a", []string{"x.go"}},
		rec{"k3", "turn_end", "t1", "a", nil},
		rec{"k4", "turn_start", "t2", "a", nil},
		rec{"k5", "turn_end", "t2", "a", nil},
	)
	check(t, j, "k1", "T1>T2:turn[x.go]", "T2>T3:turn", "T3>T4:outside", "T4>T5:turn", "T5>S:outside")
	check(t, j, "k4", "T4>T5:turn", "T5>S:outside")
}

func TestOtherSessionOverlaps(t *testing.T) {
	j := journal(
		rec{"k1", "turn_start", "t1", "a", nil},
		rec{"k2", "turn_start", "t2", "b", nil},
		rec{"k3", "tool", "t1", "a", []string{"x"}},
		rec{"k4", "turn_end", "t1", "a", nil},
		rec{"k5", "turn_end", "t2", "b", nil},
	)
	// Before b's turn started the window is a's alone; after it, both ran.
	check(t, j, "k1", "T1>T2:turn", "T2>T3:outside", "T3>T4:outside", "T4>T5:turn", "T5>S:outside")
}

// TestPartialDefersToScan: a partial capture's window holds only the
// paths its tool named; what nobody named shows up at the next full scan,
// and may have been changed while another turn overlapped, so that window
// is judged over the stretch since the last full scan.
func TestPartialDefersToScan(t *testing.T) {
	j := journal(
		rec{"k1", "turn_start", "t1", "a", nil},
		rec{"k2", "turn_start", "t2", "b", nil},
		rec{"k3", "partial", "t1", "a", []string{"x"}},
		rec{"k4", "partial", "t2", "b", []string{"y"}},
		rec{"k5", "partial", "t1", "a", []string{"z"}},
		rec{"k6", "turn_end", "t1", "a", nil},
	)
	// b's last write ends the overlap: a's next write is a's alone, but
	// the scan at a's end may find what anybody changed since k2.
	check(t, j, "k1", "T1>T2:turn", "T2>T3:outside", "T3>T4:outside", "T4>T5:turn[z]", "T5>T6:outside", "T6>S:outside")
}

func TestSubagentAfterStop(t *testing.T) {
	j := journal(
		rec{"k1", "turn_start", "t1", "a", nil},
		rec{"k2", "turn_end", "t1", "a", nil},
		rec{"k3", "tool", "t1", "a", []string{"sub.txt"}},
		rec{"k4", "turn_end", "t1", "a", nil},
	)
	check(t, j, "k1", "T1>T2:turn", "T2>T3:turn[sub.txt]", "T3>T4:turn", "T4>S:outside")
}

func TestManualOnlyAndBeforeTurns(t *testing.T) {
	j := journal(rec{"k1", "manual", "", "", nil}, rec{"k2", "manual", "", "", nil})
	if j.HasTurns() {
		t.Fatal("a journal of manual checkpoints has no turns")
	}
	check(t, j, "k1", "T1>T2:gap", "T2>S:gap")
	// Gaps before the first turn say nothing; a manual capture inside a
	// turn splits it into two turn windows.
	j = journal(
		rec{"k1", "manual", "", "", nil},
		rec{"k2", "turn_start", "t1", "a", nil},
		rec{"k3", "manual", "", "", nil},
		rec{"k4", "turn_end", "t1", "a", nil},
	)
	if !j.HasTurns() {
		t.Fatal("a journal with a turn has none")
	}
	check(t, j, "k1", "T1>T2:gap", "T2>T3:turn", "T3>T4:turn", "T4>S:outside")
}

func TestPrunedMergesWindows(t *testing.T) {
	j := journal(
		rec{"k1", "turn_start", "t1", "a", nil},
		rec{"k2", "turn_end", "t1", "a", nil},
		rec{"k3", "turn_start", "t2", "a", nil},
		rec{"k4", "tool", "t2", "a", nil},
		rec{"k5", "turn_end", "t2", "a", nil},
		rec{"k3", "pruned", "", "", nil},
		rec{"k4", "pruned", "", "", nil},
	)
	// k2..k5 spans a turn boundary once k3 and k4 are gone: a gap.
	check(t, j, "k1", "T1>T2:turn", "T2>T5:outside", "T5>S:outside")
}

func TestRewindWindow(t *testing.T) {
	j := journal(
		rec{"k1", "turn_start", "t1", "a", nil},
		rec{"k2", "turn_end", "t1", "a", nil},
		rec{"k3", "pre_rewind", "", "", nil},
		rec{"k4", "rewind", "", "", nil},
	)
	check(t, j, "k1", "T1>T2:turn", "T2>T3:outside", "T3>T4:rewind", "T4>S:outside")
}

func TestReuseRecordsAreBoundaries(t *testing.T) {
	j := journal(
		rec{"k1", "turn_start", "t1", "a", nil},
		rec{"k1", "tool", "t1", "a", []string{"same"}},
		rec{"k2", "turn_end", "t1", "a", nil},
		rec{"k2", "turn_start", "t2", "a", nil},
	)
	check(t, j, "k1", "T1>T1:turn[same]", "T1>T2:turn", "T2>T2:outside", "T2>S:outside")
}

// TestWindowsBetween: the stretch a reversal undoes ends at its end
// checkpoint, with no gap after it, and holds the other session's
// overlapping windows as gaps.
func TestWindowsBetween(t *testing.T) {
	j := journal(
		rec{"k1", "turn_start", "t1", "a", nil},
		rec{"k2", "turn_start", "t2", "b", nil},
		rec{"k3", "tool", "t1", "a", []string{"x"}},
		rec{"k4", "turn_end", "t1", "a", nil},
		rec{"k5", "turn_end", "t2", "b", nil},
	)
	between := func(from, to string) []string { return kinds(windows(j, j.ByID(from), j.ByID(to), "S")) }
	if got, want := between("k1", "k4"), []string{"T1>T2:turn", "T2>T3:outside", "T3>T4:outside"}; !slices.Equal(got, want) {
		t.Errorf("k1..k4: %q, want %q", got, want)
	}
	if got := between("k4", "k4"); len(got) != 0 {
		t.Errorf("k4..k4: %q", got)
	}
}

// TestMatchSessionExactWins: an exact id is that session even when it
// starts longer ones; a prefix of several is an error.
func TestMatchSessionExactWins(t *testing.T) {
	j := journal(
		rec{"k1", "turn_start", "t1", "abc-1", nil},
		rec{"k2", "turn_start", "t2", "abc-2", nil},
		rec{"k3", "turn_start", "t3", "abc", nil},
	)
	for in, want := range map[string]string{"abc-1": "abc-1", "abc-2": "abc-2", "abc": "abc"} {
		if got, err := MatchSession(j, in); got != want || err != nil {
			t.Errorf("MatchSession(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if got, err := MatchSession(j, "abc-"); err == nil {
		t.Errorf("MatchSession of a prefix of two sessions = %q, want an error", got)
	}
}

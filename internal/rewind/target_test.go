package rewind

import (
	"strconv"
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// history builds a journal from a compact story, one event per word:
// "k1:run_start" records checkpoint k1 with that reason, "k2:tool:partial"
// a partial one, "k1:turn_start:reused" a turn start naming k1 again, and
// "rewind:k1" a rewind to k1 that ended (after its own checkpoint, as a
// rewind journals them). Each checkpoint's tree is its id,
// and every ref points at its commit.
func history(t *testing.T, story string) (*store.Journal, map[int]string) {
	t.Helper()
	var events []store.Event
	recs := map[string]*store.Record{}
	refs := map[int]string{}
	for _, word := range strings.Fields(story) {
		parts := strings.Split(word, ":")
		if parts[0] == "rewind" {
			rw := &store.Rewind{Target: parts[1], Safety: "k0"}
			events = append(events, store.Event{Type: store.EventRewindStarted, Rewind: rw},
				store.Event{Type: store.EventRewindEnded, Rewind: rw})
			continue
		}
		id := parts[0]
		r, seen := recs[id]
		if !seen {
			r = &store.Record{ID: id, N: number(t, id), Commit: id + "commit", Tree: id + "tree", Reason: parts[1]}
			recs[id] = r
			refs[r.N] = r.Commit
		}
		ev := *r
		ev.Reason = parts[1]
		for _, flag := range parts[2:] {
			switch flag {
			case "partial":
				ev.Partial = true
				if !seen {
					r.Partial = true
				}
			case "reused":
				ev.Reused = true
			}
		}
		events = append(events, store.Event{Type: store.EventCheckpoint, Checkpoint: &ev})
	}
	return store.NewJournal(events...), refs
}

func TestDefaultTarget(t *testing.T) {
	for _, tc := range []struct {
		name, story, tree, want string
	}{
		{"the latest turn start", "k1:turn_start k2:turn_end k3:turn_start k4:turn_end", "k4tree", "k3"},
		// A turn start that reuses a tool call's partial checkpoint is a
		// turn start: passing over it undid two turns.
		{"a turn start reusing a partial checkpoint", "k1:turn_start k2:tool:partial k2:turn_start:reused k3:turn_end", "k3tree", "k2"},
		// So is one that reuses a rewind's own checkpoint.
		{"a turn start reusing a rewind's checkpoint", "k1:run_start k2:run_end k3:pre_rewind k4:rewind rewind:k1 k4:run_start:reused k5:run_end", "k5tree", "k4"},
		{"a start with the tree now is passed over", "k1:turn_start k2:turn_start", "k2tree", "k1"},
		// Right after a rewind to k3, only older checkpoints count, so a
		// second bare rewind goes further back.
		{"right after a rewind", "k1:turn_start k2:turn_end k3:turn_start k4:turn_end k5:pre_rewind k6:rewind rewind:k3", "k6tree", "k1"},
		// Without turns: the newest full checkpoint that differs.
		{"no turns: partial and rewind checkpoints are passed over", "k1:manual k2:tool:partial k3:pre_rewind", "k9tree", "k1"},
		{"nothing differs", "k1:turn_start", "k1tree", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j, refs := history(t, tc.story)
			got := ""
			if r := DefaultTarget(j, refs, tc.tree, ""); r != nil {
				got = r.ID
			}
			if got != tc.want {
				t.Errorf("DefaultTarget after %q with tree %s = %q, want %q", tc.story, tc.tree, got, tc.want)
			}
		})
	}
}

// number is the n of checkpoint id k<n>.
func number(t *testing.T, id string) int {
	t.Helper()
	n, err := strconv.Atoi(strings.TrimPrefix(id, "k"))
	if err != nil {
		t.Fatalf("bad checkpoint id %q in the story", id)
	}
	return n
}

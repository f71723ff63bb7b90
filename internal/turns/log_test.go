package turns

import (
	"context"
	"errors"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/gittest"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// emptyTree is git's empty tree, which every repository has.
const emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// logJournal: t1 of s1 (from tree before to tree after), a manual k3, a
// rewind's safety k4 and end k5, t2 of s2 still running; every checkpoint
// after t1 holds after. With "" for both, every tree is the empty tree.
func logJournal(before, after string) *store.Journal {
	if before == "" {
		before, after = emptyTree, emptyTree
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	rec := func(id, reason, turn, session, prompt, tree string) store.Event {
		return store.Event{Type: store.EventCheckpoint, Checkpoint: &store.Record{ID: id, N: int(id[1] - '0'),
			Reason: reason, Turn: turn, Session: session, Prompt: prompt, At: at, Tree: tree}}
	}
	return store.NewJournal(
		rec("k1", store.ReasonTurnStart, "t1", "s1-aaaa", "\n  add a cache\nwith LRU", before),
		rec("k2", store.ReasonTurnEnd, "t1", "s1-aaaa", "", after),
		rec("k3", store.ReasonManual, "", "", "", after),
		rec("k4", store.ReasonPreRewind, "", "", "", after),
		rec("k5", store.ReasonRewind, "", "", "", after),
		rec("k6", store.ReasonTurnStart, "t2", "s2-bbbb", "rename", after),
	)
}

// treeOf writes files into repo's index, over what it holds, and returns
// the index's tree.
func treeOf(t *testing.T, repo *gittest.Repo, files map[string]string) string {
	t.Helper()
	for path, content := range files {
		oid := strings.TrimSpace(repo.GitInput(content, "hash-object", "-w", "--stdin"))
		repo.Git("update-index", "--add", "--cacheinfo", "100644,"+oid+","+path)
	}
	return strings.TrimSpace(repo.Git("write-tree"))
}

func TestLog(t *testing.T) {
	ctx := context.Background()
	repo := gittest.NewRepo(t)
	r := &git.Runner{Dir: repo.Dir, Env: repo.Env}
	// t1 modifies a.txt, adds new.txt and deletes gone.txt.
	before := treeOf(t, repo, map[string]string{"a.txt": "a\n", "gone.txt": "g\n", "same.txt": "s\n"})
	repo.Git("rm", "-q", "--cached", "gone.txt")
	after := treeOf(t, repo, map[string]string{"a.txt": "a changed\n", "new.txt": "n\n"})
	ids := func(es []Entry) (out []string) {
		for _, e := range es {
			if e.Turn != nil {
				out = append(out, e.Turn.ID)
			} else {
				out = append(out, e.Checkpoint.ID)
			}
		}
		return out
	}
	for _, tc := range []struct {
		name string
		opts LogOptions
		want []string
	}{
		{"all", LogOptions{}, []string{"t2", "k5", "k3", "t1"}},
		{"newest turn and what came after the oldest shown", LogOptions{Turns: 1}, []string{"t2"}},
		{"turns only", LogOptions{TurnsOnly: true}, []string{"t2", "t1"}},
		{"one session", LogOptions{Session: "s1-aaaa"}, []string{"t1"}},
	} {
		es, err := Log(ctx, r, logJournal(before, after), tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(es); len(got) != len(tc.want) || fmtIDs(got) != fmtIDs(tc.want) {
			t.Errorf("%s: Log gave %v, want %v", tc.name, got, tc.want)
		}
	}
	es, _ := Log(ctx, r, logJournal(before, after), LogOptions{TurnsOnly: true})
	if !es[0].Running || es[1].Running {
		t.Errorf("running: t2 %v, t1 %v; want only t2", es[0].Running, es[1].Running)
	}
	// t2 is running and has no checkpoint after its start: nothing so far.
	if es[0].Changes == nil || *es[0].Changes != (store.Changes{}) {
		t.Errorf("changes of t2 %v, want none so far", es[0].Changes)
	}
	if want := (store.Changes{Modified: 1, Added: 1, Deleted: 1}); es[1].Changes == nil || *es[1].Changes != want {
		t.Errorf("changes of t1 %v, want %v", es[1].Changes, want)
	}
	files := map[string]string{}
	for _, f := range es[1].Files {
		files[f.Path] = f.Change
	}
	if want := map[string]string{"a.txt": "modified", "new.txt": "added", "gone.txt": "deleted"}; !maps.Equal(files, want) {
		t.Errorf("files of t1 %v, want %v", files, want)
	}
	if got := FirstLine(es[1].Turn.Prompt); got != "add a cache" {
		t.Errorf("FirstLine = %q, want the first line that is not blank", got)
	}
}

func fmtIDs(ids []string) string {
	s := ""
	for _, id := range ids {
		s += id + " "
	}
	return s
}

func TestMatchSession(t *testing.T) {
	j := logJournal("", "")
	for in, want := range map[string]string{"s1-aaaa": "s1-aaaa", "s2": "s2-bbbb", "nobody": "", "": ""} {
		if got, err := MatchSession(j, in); err != nil || got != want {
			t.Errorf("MatchSession(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	_, err := MatchSession(j, "s")
	var fe *fault.Error
	if !errors.As(err, &fe) || fe.Code != fault.InvalidAmbiguousSession {
		t.Errorf("MatchSession of an ambiguous prefix: %v", err)
	}
}

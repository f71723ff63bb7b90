package store

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/gittest"
)

var now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// journalOf builds a journal of checkpoints k1..kN with the given reasons
// and ages, every one with its ref.
func journalOf(specs ...string) (*Journal, map[int]string) {
	var events []Event
	refs := map[int]string{}
	for i, spec := range specs {
		reason, age, _ := strings.Cut(spec, "@")
		d, err := time.ParseDuration(age)
		if err != nil {
			panic(err)
		}
		n := i + 1
		r := &Record{ID: "k" + strconv.Itoa(n), N: n, Commit: "c" + strconv.Itoa(n), Reason: reason, At: now.Add(-d)}
		events = append(events, Event{Type: EventCheckpoint, Checkpoint: r})
		refs[n] = r.Commit
	}
	return NewJournal(events...), refs
}

func idsOf(recs []*Record) string {
	var out []string
	for _, r := range recs {
		out = append(out, r.ID)
	}
	return strings.Join(out, " ")
}

func TestSelect(t *testing.T) {
	day := 24 * time.Hour
	rules := Retention{Keep: 2, KeepFor: 14 * day, KeepSafety: 30 * day}
	for _, tc := range []struct {
		name   string
		specs  []string
		rules  Retention
		doomed string
		kept   int
	}{
		{"young ones stay whatever the count", []string{"manual@48h", "manual@24h", "manual@1h", "manual@1m"}, rules, "", 4},
		{"old ones beyond keep go", []string{"manual@800h", "manual@700h", "manual@600h", "manual@500h"}, rules, "k1 k2", 2},
		{"old but within keep stay", []string{"manual@800h", "turn_end@700h"}, rules, "", 2},
		{"safety ones go after keepSafety only", []string{"pre_rewind@800h", "pre_rewind@500h", "manual@800h", "manual@700h", "manual@600h"}, rules, "k1 k3", 3},
		{"safety ones do not count toward keep", []string{"manual@900h", "manual@800h", "pre_rewind@1h", "pre_rewind@2h", "manual@700h"}, rules, "k1", 4},
		{"the newest stays even with keep 0", []string{"manual@900h", "manual@800h"}, Retention{}, "k1", 1},
		{"a safety checkpoint newest of all stays", []string{"manual@900h", "pre_rewind@800h"}, Retention{}, "k1", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j, refs := journalOf(tc.specs...)
			doomed, forgotten, kept := Select(j, refs, tc.rules, now)
			if got := idsOf(doomed); got != tc.doomed || kept != tc.kept || len(forgotten) != 0 {
				t.Fatalf("doomed %q kept %d forgotten %q; want doomed %q kept %d", got, kept, idsOf(forgotten), tc.doomed, tc.kept)
			}
		})
	}
}

func TestSelectKeepsInterruptedSafetyAndForgetsGoneRefs(t *testing.T) {
	j, refs := journalOf("manual@900h", "pre_rewind@900h", "manual@900h", "manual@900h", "manual@1h")
	j = NewJournal(append(j.All(), Event{Type: EventRewindStarted, Rewind: &Rewind{Target: "k1", Safety: "k2"}})...)
	delete(refs, 3)       // deleted by hand: forgotten
	refs[4] = "elsewhere" // moved: left for doctor
	doomed, forgotten, kept := Select(j, refs, Retention{}, now)
	if idsOf(doomed) != "k1" || idsOf(forgotten) != "k3" || kept != 2 {
		t.Fatalf("doomed %q forgotten %q kept %d", idsOf(doomed), idsOf(forgotten), kept)
	}
	j = NewJournal(append(j.All(), Event{Type: EventPruned, Pruned: []string{"k3"}})...)
	if _, forgotten, _ = Select(j, refs, Retention{}, now); len(forgotten) != 0 {
		t.Fatalf("a forgotten checkpoint is forgotten again: %q", idsOf(forgotten))
	}
}

// repoStore makes a real repository with n checkpoint refs and records,
// each older than the last by a day, and returns its store.
func repoStore(t *testing.T, n int) (*Store, *Journal) {
	t.Helper()
	g := gittest.NewRepo(t)
	gitRun := g.GitInput
	s := &Store{Dir: filepath.Join(g.Dir, ".git", "checkpoints"), Worktree: "main", RefPrefix: "refs/checkpoints/main/",
		Git: &git.Runner{Dir: g.Dir, Env: g.Env}, Now: func() time.Time { return now }}
	j := &Journal{}
	tree := gitRun("", "hash-object", "-t", "tree", "-w", "--stdin")
	for i := 1; i <= n; i++ {
		c := gitRun("checkpoint "+strconv.Itoa(i), "commit-tree", tree)
		if err := s.CreateRef(context.Background(), i, c); err != nil {
			t.Fatal(err)
		}
		r := &Record{ID: "k" + strconv.Itoa(i), N: i, Commit: c, Tree: tree, Reason: ReasonManual, At: now.Add(-time.Duration(n-i+20) * 24 * time.Hour)}
		if err := s.Append(j, Event{Type: EventCheckpoint, Checkpoint: r}); err != nil {
			t.Fatal(err)
		}
	}
	return s, j
}

func TestPruneIsOneCompareAndSwapTransaction(t *testing.T) {
	ctx := context.Background()
	s, j := repoStore(t, 4)
	refs, err := s.Refs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// k2's ref moves after the refs were read: the transaction must fail
	// as a whole, deleting nothing.
	stale := map[int]string{}
	for n, c := range refs {
		stale[n] = c
	}
	if _, err := s.Git.Run(ctx, git.Cmd{Args: []string{"update-ref", s.Ref(2), refs[3], refs[2]}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Prune(ctx, j, stale, Retention{Keep: 1}, false); err == nil {
		t.Fatal("prune succeeded although a ref it deletes moved")
	}
	after, _ := s.Refs(ctx)
	if len(after) != 4 {
		t.Fatalf("a failed prune deleted refs: %v", after)
	}
	if _, err := s.Git.Run(ctx, git.Cmd{Args: []string{"update-ref", s.Ref(2), refs[2], refs[3]}}); err != nil {
		t.Fatal(err)
	}
	res, err := s.Prune(ctx, j, refs, Retention{Keep: 1}, false)
	if err != nil {
		t.Fatal(err)
	}
	if idsOf(res.Pruned) != "k1 k2 k3" {
		t.Fatalf("pruned %q", idsOf(res.Pruned))
	}
	if after, _ = s.Refs(ctx); len(after) != 1 || after[4] == "" {
		t.Fatalf("refs after the prune: %v", after)
	}
	reread, _ := s.Journal()
	if len(reread.Problems()) > 0 || !reread.Pruned("k1") || !reread.Pruned("k3") || reread.Pruned("k4") {
		t.Fatalf("the journal after the prune: %v %+v", reread.Problems(), reread.All()[reread.Len()-1])
	}
}

func TestPruneIfDueAtMostHourly(t *testing.T) {
	ctx := context.Background()
	s, j := repoStore(t, 3)
	clock := now
	s.Now = func() time.Time { return clock }
	rules := Retention{Keep: 1}
	res, err := s.PruneIfDue(ctx, j, rules)
	if err != nil || res == nil || idsOf(res.Pruned) != "k1 k2" {
		t.Fatalf("first prune: %v %v", res, err)
	}
	// A new checkpoint, then another turn end within the hour: no prune.
	tree := j.Latest().Tree
	out, err := s.Git.Run(ctx, git.Cmd{Args: []string{"commit-tree", tree}, Stdin: []byte("k4")})
	if err != nil {
		t.Fatal(err)
	}
	c := strings.TrimSpace(string(out))
	s.CreateRef(ctx, 4, c)
	s.Append(j, Event{Type: EventCheckpoint, Checkpoint: &Record{ID: "k4", N: 4, Commit: c, Reason: ReasonManual, At: clock.Add(-30 * 24 * time.Hour)}})
	clock = clock.Add(59 * time.Minute)
	if res, err := s.PruneIfDue(ctx, j, rules); res != nil || err != nil {
		t.Fatalf("pruned again within the hour: %v %v", res, err)
	}
	clock = clock.Add(2 * time.Minute)
	res, err = s.PruneIfDue(ctx, j, rules)
	if err != nil || res == nil || idsOf(res.Pruned) != "k3" {
		t.Fatalf("prune after the hour: %+v %v", res, err)
	}
}

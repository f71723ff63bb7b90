package rewind

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/capture"
	"github.com/git-checkpoint/git-checkpoint/internal/gittest"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
	"github.com/git-checkpoint/git-checkpoint/internal/workspace"
)

// TestRetargetIsTheDryRun checks that the plan Retarget makes against one
// snapshot is, for each target, the plan a dry run to that target makes
// from its own scan (same id, same files and classes), and that it runs
// no scan of the tree.
func TestRetargetIsTheDryRun(t *testing.T) {
	g := gittest.NewRepoWith(t, map[string]string{"a.txt": "one\n", "notes.txt": "notes\n"})
	ctx := context.Background()
	var trace strings.Builder
	w, err := workspace.Open(ctx, workspace.Options{Dir: g.Dir, Environ: append(g.Env, "GIT_CHECKPOINT_TRACE=1"), Now: time.Now, Warnings: &trace})
	if err != nil {
		t.Fatal(err)
	}
	st, c := w.Store, w.Capture
	j, err := st.Journal()
	if err != nil {
		t.Fatal(err)
	}
	take := func(reason, turn string) {
		t.Helper()
		if _, err := c.Capture(ctx, j, capture.Options{Reason: reason, Turn: turn, Session: "s1", Agent: "claude"}); err != nil {
			t.Fatal(err)
		}
	}
	take(store.ReasonTurnStart, "t1")
	g.Write(map[string]string{"b.txt": "new\n"})
	take(store.ReasonTurnEnd, "t1")
	take(store.ReasonTurnStart, "t2")
	g.Write(map[string]string{"a.txt": "two\n"})
	take(store.ReasonTurnEnd, "t2")
	g.Write(map[string]string{"notes.txt": "mine\n"}) // a person's edit

	rw := &Rewinder{Workspace: w}
	dry := func(id string) *Prepared {
		t.Helper()
		pr, err := rw.Plan(ctx, Request{ID: id, DryRun: true, Outside: "refuse"})
		if err != nil {
			t.Fatal(err)
		}
		return pr
	}
	base := dry("t2")
	for _, id := range []string{"t1", "t2"} {
		trace.Reset()
		got, err := rw.Retarget(ctx, base, id)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(trace.String(), "update-index") || strings.Contains(trace.String(), " status") {
			t.Errorf("Retarget(%s) scanned the tree:\n%s", id, trace.String())
		}
		want := dry(id)
		if !strings.Contains(trace.String(), " status") {
			t.Fatalf("a dry run traced no scan, so the check above proves nothing:\n%s", trace.String())
		}
		if got.Target.ID != want.Target.ID || got.Plan.ID != want.Plan.ID || !slices.Equal(got.Plan.Files, want.Plan.Files) {
			t.Errorf("Retarget(%s) = %s %s %v, the dry run = %s %s %v", id,
				got.Target.ID, got.Plan.ID, got.Plan.Files, want.Target.ID, want.Plan.ID, want.Plan.Files)
		}
	}
	// t1's start has neither b.txt nor "two": three paths, the person's
	// notes.txt among them as theirs.
	t1, _ := rw.Retarget(ctx, base, "t1")
	var classes []string
	for _, f := range t1.Plan.Files {
		classes = append(classes, f.Change+" "+f.Class+" "+f.Path)
	}
	if want := []string{"modify turn a.txt", "delete turn b.txt", "modify outside notes.txt"}; !slices.Equal(classes, want) {
		t.Errorf("the plan to t1 is %q, want %q", classes, want)
	}
	if _, err := rw.Retarget(ctx, base, "t9"); err == nil {
		t.Error("Retarget to a turn that does not exist succeeded")
	}
	applying, err := rw.Plan(ctx, Request{ID: "t1", Outside: "keep"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rw.Retarget(ctx, applying, "t2"); err == nil {
		t.Error("Retarget of a prepared rewind that applies succeeded")
	}
}

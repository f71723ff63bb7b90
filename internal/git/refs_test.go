package git

import (
	"context"
	"strings"
	"testing"
)

func TestCommitTreeAndUpdateRef(t *testing.T) {
	ctx := context.Background()
	r, dir := newRepo(t)
	tree := writeFiles(t, r, dir, map[string]string{"a": "1"})
	env := []string{"GIT_AUTHOR_NAME=tool", "GIT_AUTHOR_EMAIL=tool@localhost",
		"GIT_COMMITTER_NAME=tool", "GIT_COMMITTER_EMAIL=tool@localhost"}
	c1, err := r.CommitTree(ctx, CommitRequest{Tree: tree, Message: "first\n\n-n line\n", Env: env})
	if err != nil {
		t.Fatal(err)
	}
	c2, err := r.CommitTree(ctx, CommitRequest{Tree: tree, Parents: []string{c1}, Message: "second\n", Env: env})
	if err != nil {
		t.Fatal(err)
	}
	if got := run(t, r, "log", "--format=%an %P %B", "-1", c2); got != "tool "+c1+" second" {
		t.Errorf("commit = %q", got)
	}
	if got := run(t, r, "log", "--format=%B", "-1", c1); got != "first\n\n-n line" {
		t.Errorf("message = %q", got)
	}

	ref := "refs/checkpoints/main/1"
	if err := r.UpdateRef(ctx, RefUpdate{Ref: ref, New: c1}); err == nil || !strings.Contains(err.Error(), "no expected old value") {
		t.Errorf("an update without an old value = %v", err)
	}
	if err := r.UpdateRef(ctx, RefUpdate{Ref: ref, New: c1, Create: true, NoDeref: true}); err != nil {
		t.Fatal(err)
	}
	if err := r.UpdateRef(ctx, RefUpdate{Ref: ref, New: c2, Create: true}); err == nil {
		t.Error("Create replaced a ref that exists")
	}
	if err := r.UpdateRef(ctx, RefUpdate{Ref: ref, New: c2, Old: c2}); err == nil {
		t.Error("an update with the wrong old value succeeded")
	}
	if err := r.UpdateRef(ctx, RefUpdate{Ref: ref, New: c2, Old: c1, Reason: "move"}); err != nil {
		t.Fatal(err)
	}
	if err := r.UpdateRef(ctx, RefUpdate{Ref: "refs/checkpoints/main/2", New: c1, Create: true}); err != nil {
		t.Fatal(err)
	}

	refs, err := r.ForEachRef(ctx, "refs/checkpoints/main/")
	if err != nil {
		t.Fatal(err)
	}
	if len(refs) != 2 || refs[0] != (Ref{ref, c2}) || refs[1] != (Ref{"refs/checkpoints/main/2", c1}) {
		t.Errorf("ForEachRef = %+v", refs)
	}

	// A transaction with one stale old value changes nothing.
	stale := []RefUpdate{{Ref: ref, Old: c2}, {Ref: "refs/checkpoints/main/2", Old: c2}}
	if err := r.UpdateRefs(ctx, stale); err == nil {
		t.Error("a transaction with a stale old value succeeded")
	}
	if refs, _ := r.ForEachRef(ctx, "refs/checkpoints/"); len(refs) != 2 {
		t.Errorf("a failed transaction changed refs: %+v", refs)
	}
	batch := []RefUpdate{{Ref: ref, Old: c2}, {Ref: "refs/checkpoints/main/2", New: c2, Old: c1},
		{Ref: "refs/checkpoints/main/3", New: c1, Create: true}}
	if err := r.UpdateRefs(ctx, batch); err != nil {
		t.Fatal(err)
	}
	refs, err = r.ForEachRef(ctx, "refs/checkpoints/")
	if err != nil {
		t.Fatal(err)
	}
	if len(refs) != 2 || refs[0] != (Ref{"refs/checkpoints/main/2", c2}) || refs[1] != (Ref{"refs/checkpoints/main/3", c1}) {
		t.Errorf("after the transaction: %+v", refs)
	}
	if err := r.UpdateRefs(ctx, []RefUpdate{{Ref: "refs/x", New: c1, Create: true}, {Ref: "refs/y", New: c1, Create: true, Reason: "r"}}); err == nil {
		t.Error("a transaction with different reasons was accepted")
	}
	if err := r.UpdateRef(ctx, RefUpdate{Ref: "refs/checkpoints/main/3", Old: c1}); err != nil {
		t.Fatal(err)
	}
	if refs, _ := r.ForEachRef(ctx, "refs/checkpoints/main/3"); len(refs) != 0 {
		t.Errorf("a deleted ref is listed: %+v", refs)
	}
	if none, err := r.ForEachRef(ctx, "refs/nothing/"); err != nil || len(none) != 0 {
		t.Errorf("ForEachRef of nothing = %+v, %v", none, err)
	}
}

func hashObject(t *testing.T, r *Runner, kind string, body []byte) string {
	t.Helper()
	out, err := r.Run(context.Background(), Cmd{Args: []string{"hash-object", "-t", kind, "--stdin"}, Stdin: body})
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// TestRefSession: while OpenRefs holds an update-ref open, UpdateRef makes
// each update through it, in a transaction of its own, with no process
// of its own; an update git refuses (a ref that must not exist and does)
// fails as it would from a process of its own, and the updates after it
// are made by processes of their own.
func TestRefSession(t *testing.T) {
	ctx := context.Background()
	r, dir := newRepo(t)
	tree := writeFiles(t, r, dir, map[string]string{"a": "1"})
	commit, err := r.CommitTree(ctx, CommitRequest{Tree: tree, Message: "one\n", Env: Identity})
	if err != nil {
		t.Fatal(err)
	}
	var trace strings.Builder
	r.Trace = &LockedWriter{W: &trace}
	r.OpenRefs(ctx)
	for _, ref := range []string{"refs/checkpoints/main/1", "refs/checkpoints/main/2"} {
		if err := r.UpdateRef(ctx, RefUpdate{Ref: ref, New: commit, Create: true, NoDeref: true}); err != nil {
			t.Fatalf("%s: %v", ref, err)
		}
		if got := run(t, r, "rev-parse", "--verify", ref); got != commit {
			t.Fatalf("%s names %q right after UpdateRef, want %s", ref, got, commit)
		}
	}
	if n := strings.Count(trace.String(), "trace: git update-ref"); n != 1 {
		t.Errorf("%d update-ref processes for two refs, want the session's one:\n%s", n, trace.String())
	}
	err = r.UpdateRef(ctx, RefUpdate{Ref: "refs/checkpoints/main/1", New: commit, Create: true, NoDeref: true})
	if err == nil || !strings.Contains(err.Error(), "git update-ref failed") {
		t.Fatalf("creating a ref that exists: %v, want git's refusal", err)
	}
	if err := r.UpdateRef(ctx, RefUpdate{Ref: "refs/checkpoints/main/3", New: commit, Create: true, NoDeref: true}); err != nil {
		t.Fatalf("after a refusal: %v", err)
	}
	r.CloseRefs()
	if got := run(t, r, "rev-parse", "--verify", "refs/checkpoints/main/3"); got != commit {
		t.Fatalf("refs/checkpoints/main/3 names %q, want %s", got, commit)
	}
	if n := strings.Count(trace.String(), "trace: git update-ref "); n != 3 {
		t.Errorf("%d update-ref processes, want the session's, then one each for the refused update and the one after:\n%s", n, trace.String())
	}
}

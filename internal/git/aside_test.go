package git

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestAsideOrdersProcesses: work aside runs in order; a git process waits
// for it unless it reads only older objects (Cmd.Older); a failed write
// is every later process's error, and Settle's.
func TestAsideOrdersProcesses(t *testing.T) {
	ctx := context.Background()
	r, _ := newRepo(t)
	r.Aside = NewAside()
	release := make(chan struct{})
	var order []string
	r.Aside.Go(func() error { <-release; order = append(order, "first"); return nil })
	r.Aside.Go(func() error { order = append(order, "second"); return nil })

	if _, err := r.Run(ctx, Cmd{Args: []string{"rev-parse", "--git-dir"}, Older: true}); err != nil {
		t.Fatalf("a process of older objects did not run while work was aside: %v", err)
	}
	ran := make(chan error, 1)
	go func() {
		_, err := r.Run(ctx, Cmd{Args: []string{"rev-parse", "--git-dir"}})
		ran <- err
	}()
	select {
	case err := <-ran:
		t.Fatalf("a git process started before the work aside ended (err %v)", err)
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	if err := <-ran; err != nil {
		t.Fatal(err)
	}
	if len(order) != 2 || order[0] != "first" || order[1] != "second" {
		t.Fatalf("work aside ran as %q, want first then second", order)
	}

	failed := errors.New("no space left on device")
	r.Aside.Go(func() error { return failed })
	if err := r.Aside.Settle(); !errors.Is(err, failed) {
		t.Fatalf("Settle = %v, want the write's error", err)
	}
	if _, err := r.Run(ctx, Cmd{Args: []string{"rev-parse", "--git-dir"}}); !errors.Is(err, failed) {
		t.Fatalf("a process after a failed write aside ran: %v", err)
	}
	var none *Aside
	if err := none.Settle(); err != nil || none.Runs() {
		t.Fatalf("a nil Aside settles to %v and runs %v", err, none.Runs())
	}
}

// TestDiffTreesBesideAside: while work aside goes on, DiffTrees has git
// compare the pairs of older trees at once, and waits only for the pairs
// with a tree the command holds, which may be what is being written.
func TestDiffTreesBesideAside(t *testing.T) {
	ctx := context.Background()
	r, dir := newRepo(t)
	a := writeFiles(t, r, dir, map[string]string{"a": "1"})
	b := writeFiles(t, r, dir, map[string]string{"a": "2", "b": "3"})
	r.Trees, r.Aside = NewTrees(), NewAside()
	release := make(chan struct{})
	r.Aside.Go(func() error { <-release; return nil })
	got, err := r.DiffTrees(ctx, []TreePair{{a, b}}, DiffTreeOptions{Format: DiffNameOnly})
	if err != nil || len(got) != 1 || len(got[0]) != 2 {
		t.Fatalf("older trees compared while work was aside: %v %v", got, err)
	}
	r.Trees.Keep(b, []byte("a tree only this command has")) // as if written aside
	done := make(chan error, 1)
	go func() {
		_, err := r.DiffTrees(ctx, []TreePair{{a, b}, {b, a}}, DiffTreeOptions{Format: DiffNameOnly})
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("a tree held was compared before the work aside ended (err %v)", err)
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

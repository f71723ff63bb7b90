package git

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
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
	var order []string
	release := blockAside(t, r, func() { order = append(order, "first") })
	r.Aside.Go(func() error { order = append(order, "second"); return nil })

	promptly(t, "a process of older objects while work was aside", func() error {
		_, err := r.Run(ctx, Cmd{Args: []string{"rev-parse", "--git-dir"}, Older: true})
		return err
	})
	waitsFor(t, "a git process", release, func() error {
		_, err := r.Run(ctx, Cmd{Args: []string{"rev-parse", "--git-dir"}})
		return err
	})
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
	if err := none.Settle(); err != nil || none.Pending() {
		t.Fatalf("a nil Aside settles to %v, pending %v", err, none.Pending())
	}
}

// TestDiffTreesBesideAside: while work aside goes on, DiffTrees compares
// at once the pairs of older trees (git, Cmd.Older) and the pairs of a
// tree held against an older one (in process, reading the older side
// where they differ), and waits only for a comparison git must make of
// a tree it may not have yet.
func TestDiffTreesBesideAside(t *testing.T) {
	ctx := context.Background()
	r, dir := newRepo(t)
	a := writeFiles(t, r, dir, map[string]string{"d/a": "1", "e/x": "1"})
	b := writeFiles(t, r, dir, map[string]string{"d/a": "2", "d/b": "3", "e/x": "1"})
	r.Trees, r.Aside = NewTrees(), NewAside()
	// A tree only this command has, as if written aside: b's root and a
	// file z, whose blob git has.
	root, err := r.CatFile(ctx, []string{b, b + ":d/b"})
	if err != nil {
		t.Fatal(err)
	}
	r.Trees = NewTrees() // CatFile kept b; only the new tree is held
	blob, _ := hex.DecodeString(root[1].ID)
	body := append(append(slices.Clone(root[0].Body), "100644 z\x00"...), blob...)
	held := hashObject(t, r, "tree", body)
	r.Trees.Keep(held, body)

	release := blockAside(t, r, func() {})
	promptly(t, "trees compared while work was aside", func() error {
		got, err := r.DiffTrees(ctx, []TreePair{{a, b}, {a, held}, {held, a}}, DiffTreeOptions{Format: DiffNameStatus})
		if err != nil {
			return err
		}
		want := [][]DiffEntry{
			{{Status: "M", Path: "d/a"}, {Status: "A", Path: "d/b"}},
			{{Status: "M", Path: "d/a"}, {Status: "A", Path: "d/b"}, {Status: "A", Path: "z"}},
			{{Status: "M", Path: "d/a"}, {Status: "D", Path: "d/b"}, {Status: "D", Path: "z"}},
		}
		if !reflect.DeepEqual(got, want) {
			return fmt.Errorf("got %v, want %v", got, want)
		}
		return nil
	})
	r.Trees.Keep(b, []byte("not a tree git can read")) // git must compare
	waitsFor(t, "a comparison git makes of a tree held", release, func() error {
		_, err := r.DiffTrees(ctx, []TreePair{{a, b}}, DiffTreeOptions{Format: DiffNameOnly})
		return err
	})
}

// promptly runs f and fails the test unless it returns, without error,
// within ten seconds: a process that should not wait for the work aside
// would otherwise hang the test rather than fail it.
func promptly(t *testing.T, what string, f func() error) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: it waited for the work aside", what)
	}
}

// blockAside gives r's Aside work that runs then only once the returned
// release is called, which the test's end calls too, so that a failure
// leaves nothing blocked.
func blockAside(t *testing.T, r *Runner, then func()) (release func()) {
	ch := make(chan struct{})
	var once sync.Once
	release = func() { once.Do(func() { close(ch) }) }
	t.Cleanup(release)
	r.Aside.Go(func() error { <-ch; then(); return nil })
	return release
}

// waitsFor runs f and fails the test if it returns before release is
// called (it did not wait for the work aside), or fails after.
func waitsFor(t *testing.T, what string, release func(), f func() error) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		t.Fatalf("%s ran before the work aside ended (err %v)", what, err)
	case <-time.After(100 * time.Millisecond):
	}
	release()
	if err := <-done; err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

package capture

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// TestSealedCommit: a scan told which checkpoint its snapshot becomes
// (Seal) writes that checkpoint's commit in its pack, and Commit then
// starts no commit-tree: the ref names the sealed commit, whose tree,
// parent and message are the checkpoint's, and git finds the repository
// whole. Told wrong (another label), Commit writes its own commit, and the
// sealed one is only an unreachable object.
func TestSealedCommit(t *testing.T) {
	for _, tc := range []struct {
		name, label string
		sealed      bool
	}{{"right", "before rewind to k1", true}, {"wrong", "before rewind to k0", false}} {
		t.Run(tc.name, func(t *testing.T) {
			c, j, trace := sealRepo(t)
			ctx := context.Background()
			write(t, filepath.Join(c.Repo.Top, "a/1.txt"), "one\n")
			opts := Options{Reason: store.ReasonPreRewind, NoDedup: true, Label: "before rewind to k1"}
			c.WriteAside = true
			c.Seal = func(string) (Options, bool) {
				o := opts
				o.Label = tc.label
				return o, true
			}
			snap, err := c.Snapshot(ctx, j)
			c.WriteAside, c.Seal = false, nil
			if err != nil {
				t.Fatal(err)
			}
			rec, err := c.Record(ctx, j, snap, opts)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(trace.String(), "trace: git index-pack") {
				t.Fatalf("the scan wrote no pack aside, so nothing was sealed:\n%s", trace.String())
			}
			if ran := strings.Contains(trace.String(), "trace: git commit-tree"); ran == tc.sealed {
				t.Errorf("commit-tree ran: %v, want %v\n%s", ran, !tc.sealed, trace.String())
			}
			body, err := c.Git.Run(ctx, git.Cmd{Args: []string{"cat-file", "commit", "refs/checkpoints/main/2"}})
			if err != nil {
				t.Fatal(err)
			}
			want := "tree " + snap.Tree + "\nparent " + c.Repo.Head + "\n"
			if !strings.HasPrefix(string(body), want) || !strings.HasSuffix(string(body), "\n\n"+store.Message(rec)) {
				t.Errorf("checkpoint commit:\n%s\nwant tree, parent and message:\n%s...\n%s", body, want, store.Message(rec))
			}
			checkDated(t, tc.sealed, rec, body)
			out, err := c.Git.Run(ctx, git.Cmd{Args: []string{"fsck", "--strict", "--no-dangling", "--no-progress"}})
			if err != nil || len(out) > 0 {
				t.Errorf("git fsck: %v\n%s", err, out)
			}
		})
	}
}

// TestSealAhead: the commit of a checkpoint whose tree is known before
// its snapshot (a rewind's checkpoint after it) is written aside by git
// hash-object, and Commit takes it when it is the commit it would make;
// told wrong, Commit makes its own; and a commit that could not be
// written (a full disk) fails neither the work aside nor the checkpoint,
// whose commit Commit then makes itself.
func TestSealAhead(t *testing.T) {
	for _, tc := range []struct {
		name, label  string
		fail, sealed bool
	}{
		{"right", "after rewind to k1", false, true},
		{"wrong", "after rewind to k0", false, false},
		{"unwritten", "after rewind to k1", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, j := testRepo(t, map[string]string{"a/1.txt": "1\n"})
			ticking(c)
			ctx := context.Background()
			c.Git.Aside, c.Git.Trees = git.NewAside(), git.NewTrees()
			var trace bytes.Buffer
			c.Git.Trace = &git.LockedWriter{W: &trace}
			tree := j.Latest().Tree
			opts := Options{Reason: store.ReasonRewind, Label: "after rewind to k1", NoDedup: true}
			ahead := opts
			ahead.Label = tc.label
			if tc.fail {
				c.Fail = fault.Failpoints{"ahead": "enospc"}
			}
			c.SealAhead(ctx, j, tree, ahead)
			if err := c.Git.Aside.Settle(); err != nil {
				t.Fatalf("the work aside failed: %v", err)
			}
			rec, err := c.Record(ctx, j, &Snapshot{Tree: tree, Known: true}, opts)
			if err != nil {
				t.Fatal(err)
			}
			if wrote := strings.Contains(trace.String(), "trace: git hash-object -t commit -w --stdin"); wrote == tc.fail {
				t.Errorf("a commit written ahead: %v, want %v\n%s", wrote, !tc.fail, trace.String())
			}
			if ran := strings.Contains(trace.String(), "trace: git commit-tree"); ran == tc.sealed {
				t.Errorf("commit-tree ran: %v, want %v\n%s", ran, !tc.sealed, trace.String())
			}
			body, err := c.Git.Run(ctx, git.Cmd{Args: []string{"cat-file", "commit", "refs/checkpoints/main/2"}})
			if err != nil {
				t.Fatal(err)
			}
			if want := "tree " + tree + "\n"; !strings.HasPrefix(string(body), want) || !strings.HasSuffix(string(body), "\n\n"+store.Message(rec)) {
				t.Errorf("checkpoint commit:\n%s\nwant its tree %s and message:\n%s", body, tree, store.Message(rec))
			}
			checkDated(t, tc.sealed, rec, body)
		})
	}
}

// checkDated checks that a checkpoint whose commit was made ahead is
// dated as that commit is: its journal record and its commit agree.
func checkDated(t *testing.T, sealed bool, rec *store.Record, body []byte) {
	t.Helper()
	if !sealed {
		return
	}
	want := fmt.Sprintf("\ncommitter git-checkpoint <git-checkpoint@localhost> %d +0000\n", rec.At.Unix())
	if !strings.Contains(string(body), want) {
		t.Errorf("checkpoint dated %s (%d), its commit made ahead:\n%s", rec.At, rec.At.Unix(), body)
	}
}

// ticking gives c a clock 10 s later at every reading, so that a
// checkpoint dated when its commit was made ahead and one dated when it
// was recorded differ.
func ticking(c *Capturer) {
	at := time.Now()
	c.Store = store.New(c.Repo, c.Git, func() time.Time {
		at = at.Add(10 * time.Second)
		return at
	})
}

// TestSealNext: a scan told which checkpoint follows the one it seals
// (SealNext: a rewind's checkpoint after it) writes that commit in its
// pack too, and SealAhead then takes it with no process: neither
// hash-object nor commit-tree runs, the commit names the safety
// checkpoint as its previous one and is dated as it is, and git finds the
// repository whole, with no commit left unreachable. Told wrong (another
// label), SealAhead has git write the right one, and the commit in the
// pack is only an unreachable object.
func TestSealNext(t *testing.T) {
	for _, tc := range []struct {
		name, label string
		taken       bool
	}{{"right", "after rewind to k1", true}, {"wrong", "after rewind to k0", false}} {
		t.Run(tc.name, func(t *testing.T) {
			c, j, trace := sealRepo(t)
			ctx := context.Background()
			target := j.Latest().Tree
			write(t, filepath.Join(c.Repo.Top, "a/1.txt"), "one\n")
			safety := Options{Reason: store.ReasonPreRewind, NoDedup: true, Label: "before rewind to k1"}
			after := Options{Reason: store.ReasonRewind, Label: "after rewind to k1"}
			c.WriteAside = true
			c.Seal = func(string) (Options, bool) { return safety, true }
			c.SealNext = func(string) (string, Options, bool) {
				o := after
				o.Label = tc.label
				return target, o, true
			}
			snap, err := c.Snapshot(ctx, j)
			c.WriteAside, c.Seal, c.SealNext = false, nil, nil
			if err != nil {
				t.Fatal(err)
			}
			first, err := c.Record(ctx, j, snap, safety)
			if err != nil {
				t.Fatal(err)
			}
			c.SealAhead(ctx, j, target, after)
			rec, err := c.Record(ctx, j, &Snapshot{Tree: target, Known: true}, after)
			if err != nil {
				t.Fatal(err)
			}
			if ran := strings.Contains(trace.String(), "trace: git hash-object "); ran == tc.taken {
				t.Errorf("hash-object ran: %v, want %v\n%s", ran, !tc.taken, trace.String())
			}
			if strings.Contains(trace.String(), "trace: git commit-tree") {
				t.Errorf("commit-tree ran:\n%s", trace.String())
			}
			body, err := c.Git.Run(ctx, git.Cmd{Args: []string{"cat-file", "commit", "refs/checkpoints/main/3"}})
			if err != nil {
				t.Fatal(err)
			}
			want := "tree " + target + "\nparent " + c.Repo.Head + "\n"
			if !strings.HasPrefix(string(body), want) || !strings.HasSuffix(string(body), "\n\n"+store.Message(rec)) {
				t.Errorf("checkpoint commit:\n%s\nwant tree, parent and message:\n%s...\n%s", body, want, store.Message(rec))
			}
			if want := "Previous: k2 " + first.Commit + "\n"; !strings.Contains(string(body), want) {
				t.Errorf("checkpoint commit:\n%s\nwant %q", body, want)
			}
			checkDated(t, true, rec, body)
			if tc.taken && !rec.At.Equal(first.At) {
				t.Errorf("the checkpoint after is dated %s, the one before %s: want the same", rec.At, first.At)
			}
			args := []string{"fsck", "--strict", "--no-progress"}
			if !tc.taken {
				args = append(args, "--no-dangling")
			}
			out, err := c.Git.Run(ctx, git.Cmd{Args: args})
			if err != nil || len(out) > 0 {
				t.Errorf("git fsck: %v\n%s", err, out)
			}
		})
	}
}

// sealRepo is a repository of two files with one checkpoint, whose
// capturer writes aside and holds its trees, as a rewind's does, on a
// ticking clock, and traces its git processes.
func sealRepo(t *testing.T) (*Capturer, *store.Journal, *bytes.Buffer) {
	t.Helper()
	c, j := testRepo(t, map[string]string{"a/1.txt": "1\n", "b/2.txt": "2\n"})
	ticking(c)
	c.Git.Aside, c.Git.Trees = git.NewAside(), git.NewTrees()
	trace := &bytes.Buffer{}
	c.Git.Trace = &git.LockedWriter{W: trace}
	return c, j, trace
}

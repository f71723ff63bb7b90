package git

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/gitformat"
)

// TestDiffHeld: DiffTrees answers from held trees what git diff-tree
// answers, with every tree held and with only the two roots held (the
// rest read through cat-file), in every format, and sends the pairs not
// held to git, keeping their order. That the walk itself agrees with
// diff-tree on any trees is gitformat's TestDifferAgreesWithGit.
func TestDiffHeld(t *testing.T) {
	ctx := context.Background()
	r, dir := newRepo(t)
	files := awkwardFiles("x\n")
	files["a/b/c"] = "c\n"
	files["a.b"] = "a.b\n"
	var trees []string
	for i := range 4 {
		trees = append(trees, writeFiles(t, r, dir, files))
		switch i {
		case 0:
			files["a/b/n"] = "new\n"
			files["a/b/c"] = "c changed\n"
		case 1: // a directory becomes a file
			if err := os.RemoveAll(filepath.Join(dir, "a", "b")); err != nil {
				t.Fatal(err)
			}
			delete(files, "a/b/n")
			delete(files, "a/b/c")
			files["a/b"] = "a file where a directory was\n"
		default:
			files["a.b"] = fmt.Sprint("a.b ", i)
		}
	}
	// Modes and types the working tree above does not have: an
	// executable, a symlink and a submodule, then the executable bit
	// gone, the symlink a file (a type change) and the submodule moved.
	blob := strings.TrimSpace(run(t, r, "rev-parse", trees[0]+":a.b"))
	for _, entries := range []string{
		"100755 blob " + blob + "\tx\n120000 blob " + blob + "\tl\n160000 commit " + strings.Repeat("1", 40) + "\ts\n",
		"100644 blob " + blob + "\tx\n100644 blob " + blob + "\tl\n160000 commit " + strings.Repeat("2", 40) + "\ts\n",
	} {
		out, err := r.Run(ctx, Cmd{Args: []string{"mktree", "--missing"}, Stdin: []byte(entries)})
		if err != nil {
			t.Fatal(err)
		}
		trees = append(trees, strings.TrimSpace(string(out)))
	}
	trees = append(trees, gitformat.EmptyTree(40))
	plain := &Runner{Dir: r.Dir, Env: r.Env}
	all := &Runner{Dir: r.Dir, Env: r.Env, Trees: NewTrees()}
	for _, tree := range trees {
		sub := run(t, r, "ls-tree", "-r", "-t", "-z", tree)
		ids := []string{tree}
		for _, rec := range strings.Split(sub, "\x00") {
			if f := strings.Fields(rec); len(f) >= 3 && f[1] == "tree" {
				ids = append(ids, f[2])
			}
		}
		if _, err := all.CatFile(ctx, ids); err != nil {
			t.Fatal(err)
		}
	}
	// Every pair, and each with only its two roots held.
	var pairs []TreePair
	roots := &Runner{Dir: r.Dir, Env: r.Env, Trees: NewTrees()}
	for _, from := range trees {
		for _, to := range trees {
			pairs = append(pairs, TreePair{from, to})
		}
		body, _ := all.Trees.Body(from)
		roots.Trees.Keep(from, body)
	}
	for _, opts := range []DiffTreeOptions{{}, {Format: DiffNameOnly}, {Format: DiffNameStatus}, {Format: DiffNameOnly, Filter: "A"}} {
		want, err := plain.DiffTrees(ctx, pairs, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, held := range []*Runner{all, roots} {
			res, ok := held.diffHeld(ctx, pairs, opts)
			if !ok {
				t.Fatalf("%+v: the held trees were not compared", opts)
			}
			for k, p := range pairs {
				if !reflect.DeepEqual(res[k], want[k]) && (len(want[k]) > 0 || len(res[k]) > 0) {
					t.Fatalf("%s..%s %+v:\nheld %+v\ngit  %+v", p.From, p.To, opts, res[k], want[k])
				}
			}
		}
	}
	// DiffTrees sends the pairs not held to git, and keeps their order:
	// half holds the trees of pairs[1] only, and the pair between it and
	// pairs[7] touches neither, so git answers it.
	var apart TreePair
	for _, p := range pairs {
		if !slices.Contains([]string{pairs[1].From, pairs[1].To}, p.From) && !slices.Contains([]string{pairs[1].From, pairs[1].To}, p.To) && p.From != p.To {
			apart = p
			break
		}
	}
	some := []TreePair{pairs[1], apart, pairs[7]}
	want, err := plain.DiffTrees(ctx, some, DiffTreeOptions{Format: DiffNameStatus})
	if err != nil {
		t.Fatal(err)
	}
	half := &Runner{Dir: r.Dir, Env: r.Env, Trees: NewTrees()}
	for _, id := range []string{pairs[1].From, pairs[1].To} {
		body, _ := all.Trees.Body(id)
		half.Trees.Keep(id, body)
	}
	for _, held := range []*Runner{all, half} {
		var trace strings.Builder
		held.Trace = &trace
		if got, err := held.DiffTrees(ctx, some, DiffTreeOptions{Format: DiffNameStatus}); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("DiffTrees: held %v %v, git %v", got, err, want)
		}
		if sent := strings.Contains(trace.String(), "git diff-tree"); sent != (held == half) {
			t.Errorf("a runner holding %d trees sent pairs to git: %v, want %v:\n%s", len(held.Trees.bodies), sent, held == half, trace.String())
		}
		held.Trace = nil
	}
}

// TestDiffHeldLeavesGitTheErrors: a tree below the roots that git does
// not have is git's to report, as a real diff-tree would.
func TestDiffHeldLeavesGitTheErrors(t *testing.T) {
	ctx := context.Background()
	r, _ := newRepo(t)
	missing := "1234567890123456789012345678901234567890"
	root, err := r.Run(ctx, Cmd{Args: []string{"mktree", "--missing"}, Stdin: []byte("040000 tree " + missing + "\tdir\n")})
	if err != nil {
		t.Fatal(err)
	}
	tree := strings.TrimSpace(string(root))
	held := &Runner{Dir: r.Dir, Env: r.Env, Trees: NewTrees()}
	if _, err := held.CatFile(ctx, []string{tree}); err != nil {
		t.Fatal(err)
	}
	if _, ok := held.diffHeld(ctx, []TreePair{{tree, gitformat.EmptyTree(40)}}, DiffTreeOptions{}); ok {
		t.Fatal("a missing tree below was compared")
	}
	if _, err := held.DiffTree(ctx, tree, gitformat.EmptyTree(40), DiffTreeOptions{}); err == nil || !strings.Contains(err.Error(), missing[:7]) {
		t.Errorf("DiffTree of a missing tree: %v", err)
	}
}

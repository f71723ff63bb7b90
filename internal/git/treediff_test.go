package git

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestDiffHeldAgreesWithGit compares random trees both ways: git
// diff-tree, and the walk of held trees, with every tree held and with
// only the two roots held (the rest read through cat-file), in every
// format. The names are chosen so that git's order is subtle ("a" as a
// file beside "a.b", "a-" and the directory "a/"), paths go from file to
// directory and back between the two trees, and modes, symlinks and
// submodules change.
func TestDiffHeldAgreesWithGit(t *testing.T) {
	ctx := context.Background()
	r, _ := newRepo(t)
	blobs := make([]string, 3)
	for i := range blobs {
		out, err := r.Run(ctx, Cmd{Args: []string{"hash-object", "-w", "--stdin"}, Stdin: []byte(fmt.Sprint("content ", i))})
		if err != nil {
			t.Fatal(err)
		}
		blobs[i] = strings.TrimSpace(string(out))
	}
	names := []string{"a", "a.b", "a-", "a0", "b", "ab", "a b"}
	modes := []string{"100644", "100644", "100755", "120000", "160000"}
	rng := rand.New(rand.NewPCG(1, 2))
	randomTree := func() string {
		var in strings.Builder
		taken := map[string]bool{}
		for n := 0; n < 12; n++ {
			depth := 1 + rng.IntN(3)
			var parts []string
			for range depth {
				parts = append(parts, names[rng.IntN(len(names))])
			}
			p := strings.Join(parts, "/")
			// A path may not be both a file and a directory in one tree.
			clash := false
			for q := range taken {
				if q == p || strings.HasPrefix(q, p+"/") || strings.HasPrefix(p, q+"/") {
					clash = true
				}
			}
			if clash {
				continue
			}
			taken[p] = true
			mode := modes[rng.IntN(len(modes))]
			id := blobs[rng.IntN(len(blobs))]
			if mode == "160000" {
				id = strings.Repeat(fmt.Sprint(rng.IntN(9)+1), 40)
			}
			fmt.Fprintf(&in, "%s %s\t%s\n", mode, id, p)
		}
		index := t.TempDir() + "/index"
		if _, err := r.Run(ctx, Cmd{Args: []string{"update-index", "--index-info"}, Index: index, Stdin: []byte(in.String())}); err != nil {
			t.Fatal(err)
		}
		tree, err := r.WriteTree(ctx, index)
		if err != nil {
			t.Fatal(err)
		}
		return tree
	}
	var trees []string
	for range 20 {
		trees = append(trees, randomTree())
	}
	trees = append(trees, EmptyTree(40))
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
	// DiffTrees sends the pairs not held to git, and keeps their order.
	some := []TreePair{pairs[1], pairs[70], pairs[40]}
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
		if got, err := held.DiffTrees(ctx, some, DiffTreeOptions{Format: DiffNameStatus}); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("DiffTrees: held %v %v, git %v", got, err, want)
		}
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
	if _, ok := held.diffHeld(ctx, []TreePair{{tree, EmptyTree(40)}}, DiffTreeOptions{}); ok {
		t.Fatal("a missing tree below was compared")
	}
	if _, err := held.DiffTree(ctx, tree, EmptyTree(40), DiffTreeOptions{}); err == nil || !strings.Contains(err.Error(), missing[:7]) {
		t.Errorf("DiffTree of a missing tree: %v", err)
	}
}

func TestCanonMode(t *testing.T) {
	for in, want := range map[uint32]string{
		0o100644: "100644", 0o100664: "100644", 0o100755: "100755", 0o100744: "100755",
		0o120000: "120000", 0o040000: "040000", 0o160000: "160000", 0o170000: "160000",
	} {
		if got := (heldEntry{mode: canonMode(in)}).modeText(); got != want {
			t.Errorf("canonMode(%o) = %s, want %s", in, got, want)
		}
	}
}

package git

import (
	"context"
	"slices"
	"strings"
	"testing"
)

func TestParseMergeTree(t *testing.T) {
	tree := strings.Repeat("a", 40)
	cases := []struct {
		name       string
		out        string
		conflicted bool
		conflicts  []string
		messages   int
		bad        bool
	}{
		{name: "clean", out: tree + "\x00\x00"},
		{name: "clean with a message", out: tree + "\x00\x001\x00f\x00Auto-merging\x00Auto-merging f\n\x00", messages: 1},
		{name: "conflicts", conflicted: true, conflicts: []string{"f", "new\nline"}, messages: 2,
			out: tree + "\x00f\x00new\nline\x00f\x00\x001\x00f\x00CONFLICT (contents)\x00CONFLICT (content): Merge conflict in f\n\x00" +
				"2\x00new\nline\x00g\x00CONFLICT (rename/delete)\x00text\n\x00"},
		{name: "no tree", out: "fatal\x00", bad: true},
		{name: "conflicts without paths", out: tree + "\x00\x00", conflicted: true, bad: true},
		{name: "conflicts without their end", out: tree + "\x00f", conflicted: true, bad: true},
		{name: "a message cut short", out: tree + "\x00\x003\x00f\x00", bad: true},
		{name: "a count that is no number", out: tree + "\x00\x00x\x00f\x00t\x00m\x00", bad: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := parseMergeTree([]byte(c.out), c.conflicted)
			if c.bad {
				if err == nil {
					t.Fatalf("parsed %q: %+v", c.out, res)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Tree != tree || !slices.Equal(res.Conflicts, c.conflicts) || len(res.Messages) != c.messages {
				t.Fatalf("got %+v", res)
			}
		})
	}
	res, _ := parseMergeTree([]byte(cases[2].out), true)
	if m := res.Messages[1]; !slices.Equal(m.Paths, []string{"new\nline", "g"}) || m.Type != "CONFLICT (rename/delete)" || m.Text != "text" {
		t.Fatalf("second message: %+v", m)
	}
}

// TestMergeTreeReverses: with the base a change's end and theirs its
// start, the merge takes the change back out of ours and keeps what ours
// changed since; a path both changed alike in the same lines conflicts.
func TestMergeTreeReverses(t *testing.T) {
	r, dir := newRepo(t)
	ctx := context.Background()
	lines := "1\n2\n3\n4\n5\n6\n7\n"
	start := writeFiles(t, r, dir, map[string]string{"f": lines, "my notes.txt": "a\n", "keep": "k\n"})
	end := writeFiles(t, r, dir, map[string]string{"f": "changed\n" + lines[2:], "my notes.txt": "b\n"})
	ours := writeFiles(t, r, dir, map[string]string{"f": "changed\n" + lines[2:12] + "later\n", "keep": "person\n"})
	res, err := r.MergeTree(ctx, MergeRequest{Base: end, Ours: ours, Theirs: start})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Conflicts) != 0 {
		t.Fatalf("conflicts: %v", res.Conflicts)
	}
	want := map[string]string{"f": lines[:12] + "later\n", "my notes.txt": "a\n", "keep": "person\n"}
	for p, content := range want {
		if got := run(t, r, "cat-file", "blob", res.Tree+":"+p); got+"\n" != content {
			t.Errorf("%s: %q, want %q", p, got, content)
		}
	}

	clash := writeFiles(t, r, dir, map[string]string{"my notes.txt": "person\n"})
	res, err = r.MergeTree(ctx, MergeRequest{Base: end, Ours: clash, Theirs: start})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Conflicts, []string{"my notes.txt"}) {
		t.Fatalf("conflicts: %v", res.Conflicts)
	}
	again, err := r.MergeTree(ctx, MergeRequest{Base: end, Ours: clash, Theirs: start})
	if err != nil || again.Tree != res.Tree {
		t.Fatalf("the same merge gave %v, %v", again, err)
	}
}

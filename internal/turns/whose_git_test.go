package turns

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/gittest"
)

// tree writes files (name to content) as a git tree in dir's repository.
func tree(t *testing.T, r *git.Runner, files map[string]string) string {
	t.Helper()
	var info strings.Builder
	for name, content := range files {
		out, err := r.Run(context.Background(), git.Cmd{Args: []string{"hash-object", "-w", "--stdin"}, Stdin: []byte(content)})
		if err != nil {
			t.Fatal(err)
		}
		info.WriteString("100644 " + strings.TrimSpace(string(out)) + "\t" + name + "\x00")
	}
	index := filepath.Join(t.TempDir(), "index")
	if _, err := r.Run(context.Background(), git.Cmd{Args: []string{"update-index", "-z", "--index-info"},
		Index: index, Stdin: []byte(info.String())}); err != nil {
		t.Fatal(err)
	}
	out, err := r.Run(context.Background(), git.Cmd{Args: []string{"write-tree"}, Index: index})
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// TestChangesParsesBatch checks the one diff-tree of all windows: pairs
// without changes, repeated pairs and a path holding a newline, and the
// paths where a window's end differs from the tree a rewind cut short
// was writing (unlike).
func TestChangesParsesBatch(t *testing.T) {
	g := gittest.NewRepo(t)
	r := &git.Runner{Dir: g.Dir, Env: g.Env}
	a := tree(t, r, map[string]string{"x": "1", "d/y": "1"})
	b := tree(t, r, map[string]string{"x": "2", "d/y": "1", "new\nline": "n"})
	c := tree(t, r, map[string]string{"x": "2"})
	ws := []window{
		{from: a, to: b, kind: turnWindow},
		{from: b, to: b, kind: turnWindow},
		{from: a, to: b, kind: gap}, // not asked: says nothing
		{from: b, to: c, outside: true},
		{from: b, to: c, kind: turnWindow},
		{from: b, to: c, outside: true, unlike: a},
	}
	got, unlike, err := changes(context.Background(), r, ws)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"new\nline", "x"}, nil, nil, {"d/y", "new\nline"}, {"d/y", "new\nline"}, {"d/y", "new\nline"}}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Errorf("window %d: %q, want %q", i, got[i], want[i])
		}
	}
	// c against a: x differs ("2" and "1"), d/y is gone from c.
	if u := unlike[5]; len(u) != 2 || !u["x"] || !u["d/y"] || unlike[4] != nil {
		t.Errorf("unlike: %v, want x and d/y for window 5 only", unlike)
	}
}

package git

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/gittest"
)

// awkward are names that only survive NUL-terminated output and literal
// pathspecs: spaces, a newline, a tab, bytes that are not UTF-8, a leading
// dash, a leading double quote, glob and pathspec-magic characters.
var awkward = []string{"my notes.txt", "new\nline", "tab\there", "caf\xe9", "-dash", `"quoted`, "star*", ":(top)magic", "d/sub file"}

// newRepo makes a repository in a temporary directory with the hermetic
// git of every test (gittest): no system or global configuration, a
// fixed identity.
func newRepo(t *testing.T) (*Runner, string) {
	t.Helper()
	repo := gittest.NewRepo(t)
	return &Runner{Dir: repo.Dir, Env: repo.Env}, repo.Dir
}

func run(t *testing.T, r *Runner, args ...string) string {
	t.Helper()
	out, err := r.Run(context.Background(), Cmd{Args: args})
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out))
}

// writeFiles writes files (path to content) under dir, stages them all,
// and returns the tree of the index.
func writeFiles(t *testing.T, r *Runner, dir string, files map[string]string) string {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run(t, r, "add", "-A")
	tree, err := r.WriteTree(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

func awkwardFiles(content string) map[string]string {
	files := map[string]string{}
	for _, p := range awkward {
		files[p] = content + p
	}
	return files
}

func TestLsTree(t *testing.T) {
	ctx := context.Background()
	r, dir := newRepo(t)
	tree := writeFiles(t, r, dir, awkwardFiles("v1 "))
	entries, err := r.LsTree(ctx, tree, LsTreeOptions{Recursive: true})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, e := range entries {
		paths = append(paths, e.Path)
		if e.Mode != "100644" || e.Type != "blob" || len(e.OID) < 40 {
			t.Errorf("entry %+v", e)
		}
	}
	want := slices.Clone(awkward)
	slices.Sort(want)
	slices.Sort(paths)
	if !slices.Equal(paths, want) {
		t.Errorf("LsTree paths = %q, want %q", paths, want)
	}

	top, err := r.LsTree(ctx, tree, LsTreeOptions{FullTree: true, Paths: []string{"d", "-dash", "new\nline"}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range top {
		got[e.Path] = e.Type
	}
	if len(got) != 3 || got["d"] != "tree" || got["-dash"] != "blob" || got["new\nline"] != "blob" {
		t.Errorf("LsTree with paths = %+v", top)
	}

	// Paths are paths: neither ':' magic nor a wildcard.
	lit, err := r.LsTree(ctx, tree, LsTreeOptions{FullTree: true, Paths: []string{":(top)magic", "star*"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(lit) != 2 || lit[0].Path != ":(top)magic" || lit[1].Path != "star*" {
		t.Errorf("LsTree of a name with ':' magic and one with a wildcard = %+v", lit)
	}

	if _, err := parseLsTree([]byte("100644 blob abc\x00")); err == nil {
		t.Error("an entry without a path was accepted")
	}
}

func TestDiffTree(t *testing.T) {
	ctx := context.Background()
	r, dir := newRepo(t)
	before := writeFiles(t, r, dir, awkwardFiles("v1 "))
	if err := os.Remove(filepath.Join(dir, "-dash")); err != nil {
		t.Fatal(err)
	}
	after := writeFiles(t, r, dir, map[string]string{"new\nline": "v2", "caf\xe9": "v2", "added -x": "a"})

	raw, err := r.DiffTree(ctx, before, after, DiffTreeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	status := map[string]string{}
	for _, e := range raw {
		status[e.Path] = e.Status
		if e.Status == "D" && (e.Mode != "000000" || e.OldMode != "100644" || strings.Trim(e.OID, "0") != "") {
			t.Errorf("deletion %+v", e)
		}
		if e.Status == "M" && (e.OldOID == e.OID || e.Mode != "100644") {
			t.Errorf("modification %+v", e)
		}
	}
	want := map[string]string{"-dash": "D", "new\nline": "M", "caf\xe9": "M", "added -x": "A"}
	if !mapsEqual(status, want) {
		t.Errorf("DiffTree raw = %q, want %q", status, want)
	}

	ns, err := r.DiffTree(ctx, before, after, DiffTreeOptions{Format: DiffNameStatus})
	if err != nil {
		t.Fatal(err)
	}
	status = map[string]string{}
	for _, e := range ns {
		status[e.Path] = e.Status
	}
	if !mapsEqual(status, want) {
		t.Errorf("DiffTree --name-status = %q, want %q", status, want)
	}

	added, err := r.DiffTree(ctx, before, after, DiffTreeOptions{Format: DiffNameOnly, Filter: "A"})
	if err != nil {
		t.Fatal(err)
	}
	if len(added) != 1 || added[0].Path != "added -x" || added[0].Status != "" {
		t.Errorf("DiffTree --diff-filter=A --name-only = %+v", added)
	}

	// A literal "star*" matches itself alone, and a magic-looking name too.
	star := writeFiles(t, r, dir, map[string]string{"star*": "v2", "starry": "v2", ":(top)magic": "v2"})
	lit, err := r.DiffTree(ctx, after, star, DiffTreeOptions{Format: DiffNameOnly, LiteralPathspecs: true,
		Pathspecs: []string{"star*", ":(top)magic", "-dash"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := diffPaths(lit); !slices.Equal(got, []string{":(top)magic", "star*"}) {
		t.Errorf("DiffTree with literal pathspecs = %q", got)
	}
	magic, err := r.DiffTree(ctx, after, star, DiffTreeOptions{Pathspecs: []string{":(top,literal)star*"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := diffPaths(magic); !slices.Equal(got, []string{"star*"}) {
		t.Errorf("DiffTree with :(literal) = %q", got)
	}
	if none, err := r.DiffTree(ctx, star, star, DiffTreeOptions{}); err != nil || len(none) != 0 {
		t.Errorf("DiffTree of a tree with itself = %+v, %v", none, err)
	}
}

func TestDiffTrees(t *testing.T) {
	ctx := context.Background()
	r, dir := newRepo(t)
	t1 := writeFiles(t, r, dir, map[string]string{"a": "1", "new\nline": "1"})
	t2 := writeFiles(t, r, dir, map[string]string{"a": "2", "b b": "1"})
	pairs := []TreePair{{t1, t2}, {t2, t2}, {t2, t1}}
	for _, format := range []DiffFormat{DiffRaw, DiffNameStatus, DiffNameOnly} {
		res, err := r.DiffTrees(ctx, pairs, DiffTreeOptions{Format: format})
		if err != nil {
			t.Fatal(err)
		}
		if len(res) != 3 || !slices.Equal(diffPaths(res[0]), []string{"a", "b b"}) || len(res[1]) != 0 ||
			!slices.Equal(diffPaths(res[2]), []string{"a", "b b"}) {
			t.Errorf("DiffTrees format %d = %+v", format, res)
		}
		if format != DiffNameOnly && (res[0][1].Status != "A" || res[2][1].Status != "D") {
			t.Errorf("DiffTrees format %d statuses = %+v", format, res)
		}
	}
	// Entries belong to the last pair echoed; an entry before any is an error.
	if _, err := parseDiffTrees("x\x00", []TreePair{{t1, t2}}, DiffNameOnly); err == nil {
		t.Error("an entry before the first pair was accepted")
	}
	res, _ := parseDiffTrees(t1+" "+t2+"\n"+"x\x00", []TreePair{{t1, t2}, {t2, t1}}, DiffNameOnly)
	if len(res[0]) != 1 || len(res[1]) != 0 {
		t.Errorf("parseDiffTrees = %+v", res)
	}
}

func diffPaths(entries []DiffEntry) []string {
	var out []string
	for _, e := range entries {
		out = append(out, e.Path)
	}
	slices.Sort(out)
	return out
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

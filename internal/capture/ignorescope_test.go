package capture

import (
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/gittest"
)

// TestPatternPrefix pins where one rule can match.
func TestPatternPrefix(t *testing.T) {
	for line, want := range map[string]string{
		"*.log":         "",
		"node_modules/": "",
		"/dist/":        "dist",
		"/dist":         "dist",
		"!/dist/keep":   "dist/keep",
		"build/out/":    "build/out",
		"a/b/*.o":       "a/b",
		"a/*/c":         "a",
		"**/x":          "",
		"a/**":          "a",
		"/a[bc]/d":      "",
		"/a/b\\*":       "a",
		"a/b\\ ":        "a",
		"/a/b   ":       "a/b",
		"../x/*.tmp":    "../x",
	} {
		got, ok := patternPrefix(line)
		if !ok || got != want {
			t.Errorf("patternPrefix(%q) = %q, %v; want %q", line, got, ok, want)
		}
	}
	if _, ok := patternPrefix("   "); ok {
		t.Error("a line of spaces is taken as a rule")
	}
}

// TestIgnoreScopeTrims: the lines both versions share at either end are
// no change, and an agent's appended rule is the only one.
func TestIgnoreScopeTrims(t *testing.T) {
	var s IgnoreScope
	s.Change("", []byte("\xef\xbb\xbf# deps\nnode_modules/\r\n*.log\n"), []byte("node_modules/\n*.log\n/.cache/\n"))
	if s.All || !slices.Equal(s.Pathspecs(), []string{".cache"}) {
		t.Errorf("scope %+v, want .cache alone", s)
	}
	var sub IgnoreScope
	sub.Change("web", []byte("/a/b\n"), []byte("*.tmp\n/a/b\n"))
	if sub.All || !slices.Equal(sub.Pathspecs(), []string{"web"}) || !inScope(&sub, "web/x.tmp") || inScope(&sub, "webx") {
		t.Errorf("scope %+v, want web", sub)
	}
	var odd IgnoreScope
	odd.Change("", nil, []byte("../x/*.tmp\n./y\n"))
	if !odd.All {
		t.Errorf("scope %+v of rules with . or .., which name no path below: want the whole tree", odd)
	}
	var sorted IgnoreScope
	sorted.Change("", nil, []byte("/a\n/a b\n/a/b\n"))
	if got := sorted.Pathspecs(); !slices.Equal(got, []string{"a b", "a"}) { // in the order of "a b/", "a/"
		t.Errorf("pathspecs %q, want a and a b (a/b is below a)", got)
	}
	var same IgnoreScope
	same.Change("", []byte("a\n\n# c\nb\n"), []byte("a\nb\n"))
	if same.All || len(same.Pathspecs()) != 0 {
		t.Errorf("scope %+v of a change of comments and blank lines", same)
	}
}

// TestIgnoreScopeAgreesWithGit changes random .gitignore files in a tree
// of random files: every file git lists as untracked under one version of
// the rules and not under the other is in the scope of the change.
func TestIgnoreScopeAgreesWithGit(t *testing.T) {
	rules := []string{"*.log", "/dist/", "dist/", "!keep.log", "a/", "/a/b/", "a/b/*.o", "b", "/b/c.log",
		"!/dist/x.o", "**/c", "a/**/d.o", "x.*", "/x.o", "!a/b", "#c", "", "c/", "[ab]/c", "d\\*", "/a/c\\?",
		"/web/", "!/web", "web/a/", "/x.o\r", "/x.o  ", "a/b ", "../a/b", "./x.o"}
	names := []string{"a/b/c.log", "a/b/x.o", "a/c/d.o", "a/d.o", "b/c.log", "b/keep.log", "dist/x.o", "dist/y.js",
		"c/x.log", "x.o", "keep.log", "a/b/c/d.o", "d*", "a/c?", "web/dist/x.o", "web/a/b/x.o"}
	r := rand.New(rand.NewSource(7))
	pick := func() []byte {
		var b strings.Builder
		for n := r.Intn(5); n > 0; n-- {
			b.WriteString(rules[r.Intn(len(rules))] + "\n")
		}
		return []byte(b.String())
	}
	changed := 0
	for i := 0; i < 100; i++ {
		files := map[string]string{}
		for _, n := range names {
			if r.Intn(3) > 0 {
				files[n] = "x\n"
			}
		}
		repo := gittest.NewRepo(t)
		repo.Write(files) // untracked: git ignores no tracked file
		old := map[string][]byte{"": pick(), "web": pick()}
		next := map[string][]byte{"": old[""], "web": old["web"]}
		var s IgnoreScope
		for dir := range old {
			if r.Intn(2) == 0 {
				continue
			}
			b := slices.Clone(old[dir])
			switch r.Intn(3) {
			case 0:
				b = append(b, pick()...)
			case 1:
				b = append(pick(), b...)
			default:
				b = pick()
			}
			next[dir] = b
			s.Change(dir, old[dir], b)
		}
		before := untrackedUnder(t, repo, old)
		after := untrackedUnder(t, repo, next)
		for _, p := range symmetricDiff(before, after) {
			changed++
			if !inScope(&s, p) {
				t.Fatalf("case %d: %s changes from one version to the other, outside the scope %+v\nold: %q\nnew: %q",
					i, p, s, old, next)
			}
		}
	}
	if changed < 50 {
		t.Fatalf("only %d paths changed whether git ignores them: the cases test little", changed)
	}
}

// inScope reports whether p (from the top) is in what s's pathspecs, the
// listing's, cover.
func inScope(s *IgnoreScope, p string) bool {
	if s.All {
		return true
	}
	for _, d := range s.Pathspecs() {
		if p == d || strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}

// untrackedUnder writes the .gitignore files (by directory) and returns
// what git lists as untracked and not ignored.
func untrackedUnder(t *testing.T, repo *gittest.Repo, ignores map[string][]byte) []string {
	t.Helper()
	for dir, b := range ignores {
		full := filepath.Join(repo.Dir, dir, ".gitignore")
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out []string
	for _, p := range strings.Split(repo.Git("ls-files", "-z", "--others", "--exclude-standard"), "\x00") {
		if p != "" && filepath.Base(p) != ".gitignore" {
			out = append(out, p)
		}
	}
	return out
}

func symmetricDiff(a, b []string) []string {
	var out []string
	for _, p := range a {
		if !slices.Contains(b, p) {
			out = append(out, p)
		}
	}
	for _, p := range b {
		if !slices.Contains(a, p) {
			out = append(out, p)
		}
	}
	return out
}

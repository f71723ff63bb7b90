package restore

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

func samplePlan() *Plan {
	return &Plan{
		Target:  &store.Record{ID: "k4", Commit: "c0ffee", Tree: "7ree"},
		Current: "cafe",
		Head:    "beef",
		Options: Options{Outside: "refuse"},
		Files:   []File{{Path: "a.txt", Change: Modify, Class: "agent", OID: "1"}, {Path: "b", Change: Delete}},
		Left:    []Left{{Path: "big.bin", Reason: LeftTooBig}},
	}
}

// TestDigestStable: the same plan always has the same id, of the form
// p1- and 16 hex digits, and it is the documented digest of the canonical
// JSON (a change to the encoding would silently invalidate every --plan a
// user has been shown).
func TestDigestStable(t *testing.T) {
	id := samplePlan().digest()
	if !regexp.MustCompile(`^p1-[0-9a-f]{16}$`).MatchString(id) {
		t.Fatalf("digest %q is not p1-<16 hex>", id)
	}
	for i := 0; i < 3; i++ {
		if again := samplePlan().digest(); again != id {
			t.Fatalf("digest changed between calls: %s, %s", id, again)
		}
	}
	canonical := `{"target":"c0ffee","current":"cafe","head":"beef","options":{"outside":"refuse"},` +
		`"files":[["a.txt","modify"],["b","delete"]],"left":[["big.bin","too_big"]]}`
	sum := sha256.Sum256([]byte(canonical))
	if want := "p1-" + hex.EncodeToString(sum[:8]); id != want {
		t.Errorf("digest = %s, want %s (the digest of %s)", id, want, canonical)
	}
}

// TestDigestSensitive: every input the plan depends on changes its id;
// what it does not depend on (the target's id and tree, the class shown,
// the object ids) does not.
func TestDigestSensitive(t *testing.T) {
	base := samplePlan().digest()
	for name, change := range map[string]func(p *Plan){
		"target commit": func(p *Plan) { p.Target = &store.Record{Commit: "other"} },
		"current tree":  func(p *Plan) { p.Current = "other" },
		"head":          func(p *Plan) { p.Head = "" },
		"outside":       func(p *Plan) { p.Options.Outside = "keep" },
		"paths":         func(p *Plan) { p.Options.Paths = []string{"a.txt"} },
		"a file's path": func(p *Plan) { p.Files[0].Path = "a2.txt" },
		"a change":      func(p *Plan) { p.Files[1].Change = Type },
		"one file less": func(p *Plan) { p.Files = p.Files[:1] },
		"a left reason": func(p *Plan) { p.Left[0].Reason = LeftGitlink },
		"no left":       func(p *Plan) { p.Left = nil },
	} {
		p := samplePlan()
		change(p)
		if p.digest() == base {
			t.Errorf("changing the %s kept the plan id %s", name, base)
		}
	}
	p := samplePlan()
	p.Target.ID, p.Target.Tree, p.Files[0].Class, p.Files[0].OID = "k9", "x", "outside", "2"
	if p.digest() != base {
		t.Errorf("the plan id depends on what it should not")
	}
}

func TestUnder(t *testing.T) {
	for _, c := range []struct {
		path  string
		paths []string
		want  bool
	}{
		{"a/b", nil, true},
		{"a/b", []string{""}, true},
		{"a/b", []string{"a"}, true},
		{"a/b", []string{"a/"}, true},
		{"a/b", []string{"a/b"}, true},
		{"ab", []string{"a"}, false},
		{"a", []string{"a/b"}, false},
		{"c", []string{"a", "b"}, false},
	} {
		if got := Under(c.path, c.paths); got != c.want {
			t.Errorf("Under(%q, %q) = %v, want %v", c.path, c.paths, got, c.want)
		}
	}
}

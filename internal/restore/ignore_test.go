package restore

import (
	"context"
	"testing"
)

// TestIgnoredByTarget judges paths by the target tree's .gitignore files,
// nested ones and negations included, not by those in the working tree.
func TestIgnoredByTarget(t *testing.T) {
	f := newFixture(t,
		map[string]string{".gitignore": "nothing here\n"},
		map[string]string{".gitignore": "build/\n*.log\n!keep.log\n", "sub/.gitignore": "local\n"})
	got, err := ignoredByTarget(context.Background(), f.r, f.target,
		[]string{"build/x.o", "a.log", "keep.log", "sub/local", "local", "src/main.go", "sub/dir/a.log"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"build/x.o": true, "a.log": true, "sub/local": true, "sub/dir/a.log": true}
	if len(got) != len(want) {
		t.Errorf("ignored = %v, want %v", got, want)
	}
	for p := range want {
		if !got[p] {
			t.Errorf("%s not ignored by the target's rules (got %v)", p, got)
		}
	}
	none, err := ignoredByTarget(context.Background(), f.r, f.cur, []string{"a.log", "build/x.o"}, nil)
	if err != nil || len(none) != 0 {
		t.Errorf("by the current rules: %v, %v; want nothing ignored", none, err)
	}
}

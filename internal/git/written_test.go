package git

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestWrittenNamesDirectories checks which directories a sync of named
// writes covers, and which writes it cannot name (the sync is then the
// filesystem's).
func TestWrittenNamesDirectories(t *testing.T) {
	common := t.TempDir()
	objects := filepath.Join(common, "objects")
	ref := filepath.Join(common, "refs", "checkpoints", "wt-x", "7")
	for _, d := range []string{filepath.Dir(ref), filepath.Join(objects, "ab"), filepath.Join(objects, "ef"), filepath.Join(objects, "pack")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(ref, []byte("1234\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := NewWritten(common, objects, filepath.Join(common, "unsynced"))
	w.Loose("ab12cd", "ef34", "cd56") // objects/cd: git wrote nothing there
	w.Pack()
	w.Refs("refs/checkpoints/wt-x/7")
	dirs, anywhere := w.pending()
	want := []string{objects, filepath.Join(objects, "ab"), filepath.Join(objects, "ef"), filepath.Join(objects, "pack"),
		filepath.Join(common, "refs"), filepath.Join(common, "refs", "checkpoints"), filepath.Join(common, "refs", "checkpoints", "wt-x")}
	slices.Sort(want)
	if anywhere != "" || !slices.Equal(dirs, want) {
		t.Fatalf("pending: %q, anywhere %v; want %q", dirs, anywhere, want)
	}
	files, turns, why := w.Take("")
	if why != "" || len(files) != 0 || len(turns) != 2 || len(turns[0])+len(turns[1]) != len(want) ||
		!slices.ContainsFunc(turns[1], func(d string) bool { return filepath.Base(d) == "refs" }) ||
		slices.ContainsFunc(turns[0], func(d string) bool { return strings.Contains(d, "refs") }) {
		t.Fatalf("taken: %q, %q; want the objects' directories, then the refs'", turns, why)
	}
	if dirs, anywhere := w.pending(); len(dirs) > 0 || anywhere != "" {
		t.Fatalf("after Take: %q, anywhere %v", dirs, anywhere)
	}

	// An object that may have been there, written by another git: its
	// data is synced too, where it is loose.
	loose := filepath.Join(objects, "ab", "12cd")
	if err := os.WriteFile(loose, []byte("x"), 0o444); err != nil {
		t.Fatal(err)
	}
	h := NewWritten(common, objects, "")
	h.Have("ab12cd", "ab99ef") // ab99ef: in a pack, not loose
	if files, _, _ := h.Take(""); !slices.Equal(files, []string{loose}) {
		t.Fatalf("objects' data to sync: %q, want %q", files, loose)
	}

	for name, write := range map[string]func(w *Written){
		"a branch, which may be per worktree":             func(w *Written) { w.Refs("refs/heads/main") },
		"a ref git did not keep as a file":                func(w *Written) { w.Refs("refs/checkpoints/wt-x/8") },
		"a loose object in an object directory not known": func(w *Written) { w.objects = ""; w.Loose("ab12") },
		"a pack in an object directory not known":         func(w *Written) { w.objects = ""; w.Pack() },
	} {
		w := NewWritten(common, objects, "")
		write(w)
		if _, anywhere := w.pending(); anywhere == "" {
			t.Errorf("%s: named", name)
		}
	}
}

// TestWrittenMark checks the mark a writer leaves until its sync: the
// next writer that finds it syncs the filesystem, and a process that
// synced everything, or wrote nothing, leaves none.
func TestWrittenMark(t *testing.T) {
	common := t.TempDir()
	mark := filepath.Join(common, "unsynced")
	marked := func() bool { _, err := os.Lstat(mark); return err == nil }

	a := NewWritten(common, filepath.Join(common, "objects"), mark)
	a.Hold()
	done := a.Begin()
	a.Pack()
	done()
	if !marked() {
		t.Fatal("a writer left no mark before its write")
	}
	a.Release() // killed before its sync, as far as the mark goes
	if !marked() {
		t.Fatal("a writer that did not sync removed its mark")
	}

	b := NewWritten(common, filepath.Join(common, "objects"), mark)
	b.Hold()
	b.Begin()()
	b.Pack()
	if !b.inherited {
		t.Fatal("the next writer did not take in the mark it found")
	}
	if _, _, why := b.Take(""); why == "" {
		t.Fatal("a writer that found a mark did not ask for the filesystem's sync")
	}
	if !marked() {
		t.Fatal("the mark went before the sync was done")
	}
	b.Synced()
	if marked() {
		t.Fatal("a sync left the mark")
	}

	c := NewWritten(common, filepath.Join(common, "objects"), mark)
	c.Hold()
	done = c.Begin()
	if c.inherited || !marked() {
		t.Fatalf("a writer's own mark: inherited %v, marked %v", c.inherited, marked())
	}
	c.Pack()
	c.Take("")
	c.Synced() // the write is still under way: the mark stays
	if !marked() {
		t.Fatal("a sync removed the mark while a write was under way")
	}
	done()
	c.Release() // everything it wrote was synced
	if marked() {
		t.Fatal("a writer with nothing to sync left its mark")
	}

	// Without the store lock (a push, a fetch) no mark is made.
	d := NewWritten(common, filepath.Join(common, "objects"), mark)
	d.Begin()()
	if marked() {
		t.Fatal("a writer without the store lock left a mark")
	}
}

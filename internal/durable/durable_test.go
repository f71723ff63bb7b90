package durable

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestReplace checks what Replace promises whatever How says: the file
// whole at its name, the permissions asked for (0600 by default, whatever
// the umask), no temporary file left, and a failure that leaves the old
// file as it was.
func TestReplace(t *testing.T) {
	for _, how := range []How{{}, {Sync: true}, {Racing: true}, {Perm: 0o644, Sync: true, Racing: true}} {
		dir := t.TempDir()
		p := filepath.Join(dir, "f")
		if err := os.WriteFile(p, []byte("old"), 0o666); err != nil {
			t.Fatal(err)
		}
		if err := Replace(p, []byte("new"), how); err != nil {
			t.Fatalf("%+v: %v", how, err)
		}
		b, err := os.ReadFile(p)
		if err != nil || string(b) != "new" {
			t.Errorf("%+v: the file holds %q (%v)", how, b, err)
		}
		want := how.Perm
		if want == 0 {
			want = 0o600
		}
		if fi, _ := os.Stat(p); fi.Mode().Perm() != want {
			t.Errorf("%+v: mode %v, want %v", how, fi.Mode().Perm(), want)
		}
		if names, _ := os.ReadDir(dir); len(names) != 1 {
			t.Errorf("%+v: the directory holds %d files, want the one", how, len(names))
		}
		// A file that cannot be renamed into place (a directory there)
		// leaves nothing behind.
		sub := filepath.Join(dir, "d")
		os.Mkdir(sub, 0o755)
		os.WriteFile(filepath.Join(sub, "x"), nil, 0o644)
		if err := Replace(sub, []byte("new"), how); err == nil {
			t.Errorf("%+v: replacing a directory succeeded", how)
		}
		if names, _ := os.ReadDir(dir); len(names) != 2 {
			t.Errorf("%+v: a failed replace left %d files, want 2", how, len(names))
		}
	}
}

// TestReplaceRacing checks that writers racing with Racing set each leave
// a whole file: one of them wins, and no temporary file is left.
func TestReplaceRacing(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	contents := []string{"aaaaaaaa", "bbbbbbbbbbbbbbbb", "cccc"}
	var wg sync.WaitGroup
	for i := 0; i < 30; i++ {
		wg.Add(1)
		go func(s string) {
			defer wg.Done()
			if err := Replace(p, []byte(s), How{Racing: true}); err != nil {
				t.Error(err)
			}
		}(contents[i%len(contents)])
	}
	wg.Wait()
	b, _ := os.ReadFile(p)
	whole := false
	for _, c := range contents {
		whole = whole || string(b) == c
	}
	if !whole {
		t.Errorf("the file holds %q, none of the writes whole", b)
	}
	if names, _ := os.ReadDir(dir); len(names) != 1 {
		t.Errorf("the directory holds %d files, want the one", len(names))
	}
}

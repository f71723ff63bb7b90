package statcheck

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/gitformat"
	"github.com/git-checkpoint/git-checkpoint/internal/gittest"
)

// TestWalkExpectedNameListedIgnored: a file the walk expects (an index
// entry, or a path taken without being written into the index) under a
// name the scan listed as ignored, beside one new file. git's scan lists a
// path ignored when the private index does not hold it yet (a tracked file
// under an ignore rule that came back): counted among the files expected
// but passed over among the names on disk, it hid the new name.
func TestWalkExpectedNameListedIgnored(t *testing.T) {
	for _, pending := range []bool{false, true} {
		g := gittest.NewRepoWith(t, map[string]string{".gitignore": "*.log\n", "app.log": "x\n"}).Dir
		data, err := os.ReadFile(filepath.Join(g, ".git", "index"))
		if err != nil {
			t.Fatal(err)
		}
		var fi os.FileInfo
		if fi, err = os.Lstat(filepath.Join(g, "app.log")); err != nil {
			t.Fatal(err)
		}
		w := newTreeWalk(g, []string{"app.log"}, data)
		if err := gitformat.ParseIndex(data, 20, func(e *gitformat.IndexEntry) bool {
			if !pending || string(e.Path) != "app.log" {
				w.add(e)
			}
			return true
		}); err != nil {
			t.Fatal(err)
		}
		if pending {
			st := fi.Sys().(*syscall.Stat_t)
			mtim, ctim := Times(st)
			w.addPending(map[string]Pending{"app.log": {Stat: KeyOf(st.Size, mtim, ctim, st.Ino, int64(st.Dev), st.Mode)}})
		}
		if err := os.WriteFile(filepath.Join(g, "notes.txt"), []byte("new\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if why := w.run(); why != "a new name in the top directory" {
			t.Errorf("pending %v: the walk says %q of a tree with a new file", pending, why)
		}
	}
}

package capture

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// dropTempObjects removes the temporary object files git left in the
// object directory since start. A git that runs out of space while it
// writes an object dies and leaves its partly written tmp_obj_* file (or
// pack/tmp_pack_*, tmp_idx_* for a pack index-pack writes; a pack
// written here removes its own), which
// holds the space that was left: every later write fails too, the hook's
// own log and failure record among them, until `git prune` removes it two
// weeks later. A capture that failed on a full disk so gives that space
// back. Another git writing an object at that moment on that full disk is
// failing anyway.
func (c *Capturer) dropTempObjects(start time.Time) {
	objects := filepath.Join(c.Repo.CommonDir, "objects")
	dirs, err := os.ReadDir(objects)
	if err != nil {
		return
	}
	drop := func(dir string, prefixes ...string) {
		files, _ := os.ReadDir(dir)
		for _, f := range files {
			if !slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(f.Name(), p) }) {
				continue
			}
			if fi, err := f.Info(); err == nil && !fi.ModTime().Before(start.Add(-time.Second)) {
				os.Remove(filepath.Join(dir, f.Name()))
			}
		}
	}
	for _, d := range dirs {
		switch {
		case d.IsDir() && len(d.Name()) == 2:
			drop(filepath.Join(objects, d.Name()), "tmp_obj_")
		case d.IsDir() && d.Name() == "pack":
			drop(filepath.Join(objects, d.Name()), "tmp_pack_", "tmp_idx_", "tmp_rev_")
		}
	}
}

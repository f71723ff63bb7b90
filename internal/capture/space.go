package capture

import (
	"os"
	"path/filepath"
	"strings"
	"time"
)

// dropTempObjects removes the temporary object files git left in the
// object directory since start. A git that runs out of space while it
// writes an object dies and leaves its partly written tmp_obj_* file,
// which holds the space that was left: every later write fails too, the
// hook's own log and failure record among them, until `git prune` removes
// it two weeks later. A capture that failed on a full disk so gives that
// space back. Another git writing an object at that moment on that full
// disk is failing anyway.
func (c *Capturer) dropTempObjects(start time.Time) {
	objects := filepath.Join(c.Repo.CommonDir, "objects")
	dirs, err := os.ReadDir(objects)
	if err != nil {
		return
	}
	for _, d := range dirs {
		if !d.IsDir() || len(d.Name()) != 2 {
			continue
		}
		files, _ := os.ReadDir(filepath.Join(objects, d.Name()))
		for _, f := range files {
			if !strings.HasPrefix(f.Name(), "tmp_obj_") {
				continue
			}
			if fi, err := f.Info(); err == nil && !fi.ModTime().Before(start.Add(-time.Second)) {
				os.Remove(filepath.Join(objects, d.Name(), f.Name()))
			}
		}
	}
}

package git

import "strings"

// ScratchObjects returns a runner whose git writes the objects it makes
// into dir, a directory of the caller's, unsynced, and finds every object
// the repository holds through dir's alternate, the repository's object
// directory (Objects). Where attributes convert files, git hashes them
// through a temporary index, and with the pinned core.fsync each blob was
// a loose object synced on its own: a disk flush per file, a sixth of a
// rewind of 100 files (docs/speed.md, "Converted files in the pack").
// The caller reads the new objects (gitformat.ParseLoose), stores them in
// the pack it syncs anyway before any ref names them, and removes dir;
// an object the repository holds already is not written again, so dir
// holds only new ones. ok is false where the object directory is not
// known here (Objects is "": core.sharedRepository, or
// GIT_OBJECT_DIRECTORY set) or cannot be named in
// GIT_ALTERNATE_OBJECT_DIRECTORIES: the caller runs as before.
func (r *Runner) ScratchObjects(dir string) (*Runner, bool) {
	if r.Objects == "" || strings.ContainsAny(r.Objects, ":\"") || strings.ContainsAny(dir, ":\"") {
		return nil, false
	}
	alternates := r.Objects
	for _, kv := range r.Env {
		if v, ok := strings.CutPrefix(kv, "GIT_ALTERNATE_OBJECT_DIRECTORIES="); ok && v != "" {
			alternates = r.Objects + ":" + v
		}
	}
	s := *r
	s.Env = append(append([]string(nil), r.Env...), "GIT_OBJECT_DIRECTORY="+dir, "GIT_ALTERNATE_OBJECT_DIRECTORIES="+alternates)
	s.Objects, s.refs, s.scratch = "", nil, true
	return &s, true
}

package agents

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
)

// MaxPaths caps the paths one checkpoint records for attribution; a
// command that touched more is attributed by its window (class turn).
const MaxPaths = 1000

// Relative turns the names an event gave (absolute, or relative to cwd)
// into slash-separated paths below top, the working tree. Names outside
// the tree, inside its .git, or that cannot be placed are returned in
// rejected, for the log. Symlinked spellings of the tree (a project
// directory reached through a link) are resolved before giving up.
func Relative(top, cwd string, names []string) (paths, rejected []string) {
	seen := map[string]bool{}
	for _, name := range names {
		p := name
		if !filepath.IsAbs(p) {
			if cwd == "" || !filepath.IsAbs(cwd) {
				rejected = append(rejected, name)
				continue
			}
			p = filepath.Join(cwd, p)
		}
		rel, ok := below(top, filepath.Clean(p))
		if !ok {
			rel, ok = below(top, resolveParents(filepath.Clean(p)))
		}
		first, _, _ := strings.Cut(rel, "/")
		if !ok || rel == "" || first == ".git" {
			rejected = append(rejected, name)
			continue
		}
		if !seen[rel] && len(paths) < MaxPaths {
			seen[rel] = true
			paths = append(paths, rel)
		}
	}
	return paths, rejected
}

// below returns p relative to top, if p is strictly inside it.
func below(top, p string) (string, bool) {
	rel, err := filepath.Rel(top, p)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// resolveParents resolves symlinks in the longest existing leading part of
// p: the file itself may be gone (a command deleted it), its directory is
// usually still there.
func resolveParents(p string) string {
	dir, rest := p, ""
	for {
		real, err := filepath.EvalSymlinks(dir)
		if err == nil {
			return filepath.Join(real, rest)
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return p
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
}

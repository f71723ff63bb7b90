package capture

import (
	"bytes"
	"path"
	"slices"
	"strings"
)

// IgnoreScope is where changed ignore rules can change which paths git
// ignores: the paths from the top of the tree in Paths, each with all
// below it, or the whole tree (All).
//
// Git decides a path by the last rule that matches it, in an order that
// does not depend on the path, and does not look below a directory it
// ignores. A rule that is in both versions of a .gitignore, in the same
// order among the rest, matches the same paths in both; so a path none of
// whose ancestors nor itself matches a rule that is in one version only
// gets the same answer from both. Trimming the lines both versions begin
// and end with leaves those rules (and perhaps a few more), and each can
// match only below the directory its pattern names before its first
// wildcard: an agent's appended `/dist/` changes `dist` alone, while
// `*.log` changes its .gitignore's whole directory.
type IgnoreScope struct {
	All   bool
	Paths []string
}

// Dir adds the whole of dir ("" for the top): a .gitignore there changed
// in a way whose rules are not compared (one that is a symlink, which git
// does not read, on one side).
func (s *IgnoreScope) Dir(dir string) {
	if dir == "" || dir == "." {
		s.All = true
		return
	}
	s.Paths = append(s.Paths, dir)
}

// Change adds where the .gitignore in dir ("" for the top) going from
// old to new can change what is ignored.
func (s *IgnoreScope) Change(dir string, old, new []byte) {
	if dir == "." {
		dir = ""
	}
	a, b := ignoreLines(old), ignoreLines(new)
	for len(a) > 0 && len(b) > 0 && a[0] == b[0] {
		a, b = a[1:], b[1:]
	}
	for len(a) > 0 && len(b) > 0 && a[len(a)-1] == b[len(b)-1] {
		a, b = a[:len(a)-1], b[:len(b)-1]
	}
	for _, line := range append(a, b...) {
		p, ok := patternPrefix(line)
		switch {
		case !ok:
			continue
		case p == "" || !local(p):
			// A "." or ".." in a rule matches no path git lists
			// (and would name one outside the tree): the whole
			// directory, as for any rule not read further.
			s.Dir(dir)
		default:
			s.Paths = append(s.Paths, path.Join(dir, p))
		}
	}
}

// local reports whether p is a path below its directory with no "." or
// ".." component.
func local(p string) bool {
	for _, c := range strings.Split(p, "/") {
		if c == "" || c == "." || c == ".." {
			return false
		}
	}
	return true
}

// Pathspecs are the paths of s, sorted, none below another: none when
// the scope is empty, and none either when it is the whole tree (All).
func (s *IgnoreScope) Pathspecs() []string {
	if s.All {
		return nil
	}
	ps := slices.Clone(s.Paths)
	// Sorted as directories, so that "a/b" follows "a" and not "a b".
	slices.SortFunc(ps, func(a, b string) int { return strings.Compare(a+"/", b+"/") })
	out := ps[:0]
	for _, p := range ps {
		if n := len(out); n > 0 && (p == out[n-1] || strings.HasPrefix(p, out[n-1]+"/")) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// touches reports whether the path e (an ignored directory as "dir/")
// can hold what s holds or be held by it: the entries of a listing made
// before the rules changed that they can show.
func (s *IgnoreScope) touches(e string) bool {
	if s.All {
		return true
	}
	e = strings.TrimSuffix(e, "/")
	for _, d := range s.Paths {
		if e == d || strings.HasPrefix(e, d+"/") || strings.HasPrefix(d, e+"/") {
			return true
		}
	}
	return false
}

// ignoreLines are the rules of a .gitignore as git reads them: a UTF-8
// byte order mark skipped, lines split at "\n" with a "\r" before it
// dropped, comments and blank lines left out. Trailing spaces are kept:
// patternPrefix gives up on a line whose trailing spaces git might keep.
func ignoreLines(data []byte) []string {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var lines []string
	for _, l := range strings.Split(string(data), "\n") {
		l = strings.TrimSuffix(l, "\r")
		if l == "" || l[0] == '#' {
			continue
		}
		lines = append(lines, l)
	}
	return lines
}

// patternPrefix is the path, relative to its .gitignore's directory,
// below which the rule line can match: "" where it can match anywhere
// there (a pattern without a slash, but a trailing one, matches a name at
// any depth; a wildcard or an escape in its first component). ok is false
// for a line that holds no rule (spaces only).
func patternPrefix(line string) (prefix string, ok bool) {
	p := strings.TrimPrefix(line, "!")
	if !strings.Contains(p, "\\") {
		p = strings.TrimRight(p, " ") // git keeps an escaped one only
	}
	if p == "" {
		return "", false
	}
	p = strings.TrimSuffix(p, "/")
	if !strings.Contains(p, "/") {
		return "", true // a name matched at any depth
	}
	p = strings.TrimPrefix(p, "/")
	i := strings.IndexAny(p, "*?[\\")
	if i < 0 {
		return p, true // one path, and what is below it
	}
	if j := strings.LastIndexByte(p[:i], '/'); j >= 0 {
		return p[:j], true
	}
	return "", true
}

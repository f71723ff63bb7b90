package gitformat

import (
	"bytes"
	"cmp"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
)

// AbsentMode is the mode git diff-tree gives the side a path is missing
// from.
const AbsentMode = "000000"

// DiffEntry is one path that differs between two trees, as `git
// diff-tree -r --raw` gives it. A mode of AbsentMode (and an id of
// zeros) stands for the side the path is missing from.
type DiffEntry struct {
	Status        string // A, D, M or T (renames are never detected)
	OldMode, Mode string
	OldOID, OID   string
	Path          string
}

// File types of git's modes, as in tree objects.
const (
	typeMask    = 0o170000
	typeTree    = 0o040000
	typeFile    = 0o100000
	typeSymlink = 0o120000
	typeGitlink = 0o160000
)

// A Differ compares two trees in memory as `git diff-tree -r
// --no-renames` does: entries matched by name, a tree named like a
// non-tree being two different entries (a file replaced by a directory
// is the file deleted and the directory's files added), modes made
// canonical as git reads them (canon_mode), a different id or mode a
// modification, and a different file type (file, symlink, submodule) a
// type change (T). The entries come in git's order, which for full paths
// is their byte order. It reads only the subtrees where the two sides
// differ. TestDifferAgreesWithGit compares the two on random trees.
type Differ struct {
	// Bodies returns the body of each tree id, in order; ok is false
	// when one is not a tree, or could not be read.
	Bodies func(ids []string) (bodies [][]byte, ok bool)
	// from and to hold the entries of the two trees last compared, for
	// the next two to reuse (see entry).
	from, to []entry
}

// walked is two trees to compare at a directory.
type walked struct{ dir, from, to string }

// Diff compares the trees from and to (ids of one length) a level at a
// time, reading each level's trees in one call of Bodies. ok is false
// when a tree could not be read or does not parse.
func (d *Differ) Diff(from, to string) (entries []DiffEntry, ok bool) {
	if from == to {
		return nil, true
	}
	zero := strings.Repeat("0", len(from))
	var out []DiffEntry
	level := []walked{{"", from, to}}
	for len(level) > 0 {
		var ids []string
		for _, w := range level {
			ids = append(ids, w.from, w.to)
		}
		ids = slices.DeleteFunc(ids, func(id string) bool { return id == "" })
		bodies, ok := d.Bodies(ids)
		if !ok {
			return nil, false
		}
		byID := make(map[string][]byte, len(ids))
		for i, id := range ids {
			byID[id] = bodies[i]
		}
		var next []walked
		for _, w := range level {
			a, erra := readEntries(byID[w.from], len(from)/2, d.from[:0])
			b, errb := readEntries(byID[w.to], len(from)/2, d.to[:0])
			if erra != nil || errb != nil {
				return nil, false
			}
			d.from, d.to = a, b
			sub, leaves := compareLevel(w.dir, a, b, zero)
			next, out = append(next, sub...), append(out, leaves...)
		}
		level = next
	}
	slices.SortFunc(out, func(x, y DiffEntry) int { return strings.Compare(x.Path, y.Path) })
	return out, true
}

// compareLevel compares the entries of one directory on both sides: the
// pairs of trees to compare below it, and the changes of its other
// entries.
func compareLevel(dir string, a, b []entry, zero string) (sub []walked, leaves []DiffEntry) {
	join := func(name []byte) string {
		if dir == "" {
			return string(name)
		}
		return dir + "/" + string(name)
	}
	gone := func(e entry) {
		if e.isTree() {
			sub = append(sub, walked{join(e.name), e.hex(), ""})
			return
		}
		leaves = append(leaves, DiffEntry{Status: "D", OldMode: e.modeText(), Mode: AbsentMode, OldOID: e.hex(), OID: zero, Path: join(e.name)})
	}
	added := func(e entry) {
		if e.isTree() {
			sub = append(sub, walked{join(e.name), "", e.hex()})
			return
		}
		leaves = append(leaves, DiffEntry{Status: "A", OldMode: AbsentMode, Mode: e.modeText(), OldOID: zero, OID: e.hex(), Path: join(e.name)})
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		c := 0
		switch {
		case i == len(a):
			c = 1
		case j == len(b):
			c = -1
		default:
			c = compareKeys(a[i], b[j])
		}
		switch {
		case c < 0:
			gone(a[i])
			i++
		case c > 0:
			added(b[j])
			j++
		default:
			x, y := a[i], b[j]
			i, j = i+1, j+1
			switch {
			case x.mode == y.mode && bytes.Equal(x.oid, y.oid):
			case x.isTree():
				sub = append(sub, walked{join(x.name), x.hex(), y.hex()})
			default:
				status := "M"
				if x.mode&typeMask != y.mode&typeMask {
					status = "T"
				}
				leaves = append(leaves, DiffEntry{Status: status, OldMode: x.modeText(), Mode: y.modeText(), OldOID: x.hex(), OID: y.hex(), Path: join(x.name)})
			}
		}
	}
	return sub, leaves
}

// entry is one entry of a tree object, its mode made canonical. Its
// name and raw id are the tree's own bytes, read into a slice the Differ
// keeps from one tree to the next (Differ.from, .to), and an id is
// put in hex only when a difference needs it: a directory of 5,000
// entries, read for each window a rewind classifies, made two strings
// each and a new slice every time, most of a wide tree's classification
// in allocations and the page faults of their memory (docs/speed.md,
// "The rewind's commits made ahead").
type entry struct {
	name, oid []byte
	mode      uint32
}

// hex is the entry's id as git prints it.
func (e entry) hex() string { return hex.EncodeToString(e.oid) }

func (e entry) isTree() bool { return e.mode == typeTree }

// compareKeys compares two entries in git's order of a tree's entries:
// by name, a tree's as if it ended in "/". It builds no string, where
// each comparison of two directories' entries made two name+"/".
func compareKeys(x, y entry) int {
	n := min(len(x.name), len(y.name))
	if c := bytes.Compare(x.name[:n], y.name[:n]); c != 0 {
		return c
	}
	return cmp.Compare(x.keyAt(n), y.keyAt(n))
}

// keyAt is the byte at i of the name the entry sorts by, or -1 past its
// end (which sorts first).
func (e entry) keyAt(i int) int {
	switch {
	case i < len(e.name):
		return int(e.name[i])
	case i == len(e.name) && e.isTree():
		return '/'
	}
	return -1
}

// modeText is the mode as diff-tree prints it: six octal digits.
func (e entry) modeText() string {
	s := strconv.FormatUint(uint64(e.mode), 8)
	return strings.Repeat("0", 6-len(s)) + s
}

// readEntries reads a tree object's body ("<mode> <name>\0<raw id>"
// repeated, ids of idLen bytes) in git's order of its entries, appending
// them to out. A nil body is a side the directory is missing from: no
// entries.
func readEntries(body []byte, idLen int, out []entry) ([]entry, error) {
	bad := false
	err := eachEntry(body, idLen, func(mode, name, id []byte) bool {
		m, err := strconv.ParseUint(string(mode), 8, 32)
		if err != nil {
			bad = true
			return false
		}
		out = append(out, entry{name: name, oid: id, mode: canonMode(uint32(m))})
		return true
	})
	if err != nil || bad {
		return nil, errBadTree
	}
	// git writes a tree's entries in this order; only a tree written
	// otherwise needs sorting.
	if !slices.IsSortedFunc(out, compareKeys) {
		slices.SortStableFunc(out, compareKeys)
	}
	return out, nil
}

// canonMode is the mode git gives an entry it reads from a tree
// (canon_mode): a regular file 100644 or, when its owner may execute it,
// 100755; any other type but a tree, symlink or file a submodule.
func canonMode(m uint32) uint32 {
	switch m & typeMask {
	case typeFile:
		if m&0o100 != 0 {
			return typeFile | 0o755
		}
		return typeFile | 0o644
	case typeSymlink:
		return typeSymlink
	case typeTree:
		return typeTree
	}
	return typeGitlink
}

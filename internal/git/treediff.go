package git

import (
	"bytes"
	"cmp"
	"context"
	"encoding/hex"
	"errors"
	"slices"
	"strconv"
	"strings"
)

// File types of git's modes, as in tree objects.
const (
	typeMask    = 0o170000
	typeTree    = 0o040000
	typeFile    = 0o100000
	typeSymlink = 0o120000
	typeGitlink = 0o160000
)

// diffHeld is DiffTrees answered from held trees (Runner.Trees), without
// a diff-tree process, when it can be: every pair has a tree held (walks
// prunes every subtree the two sides share, so the other side's trees
// are read only where they differ, from one `git cat-file --batch`), and
// opts asks for nothing but a format and a plain filter. ok false means
// git must answer instead: a pair with neither tree held, a pathspec, or
// a tree below that git does not have as one (git then says why).
//
// A pair with one tree held is a command's own new tree against an older
// one (a rewind's scan against its target): walking it here needs none
// of the objects a write aside is storing, which a diff-tree would wait
// for (docs/speed.md, "Waiting hooks in one group, writes aside").
//
// It compares as `git diff-tree -r --no-renames` does: entries matched by
// name, a tree named like a non-tree being two different entries (a file
// replaced by a directory is the file deleted and the directory's files
// added), modes made canonical as git reads them (canon_mode), a
// different id or mode a modification, and a different file type (file,
// symlink, submodule) a type change (T). The entries come in git's
// order, which for full paths is their byte order. TestDiffHeldAgreesWithGit
// compares the two on random trees.
func (r *Runner) diffHeld(ctx context.Context, pairs []TreePair, opts DiffTreeOptions) ([][]DiffEntry, bool) {
	if len(opts.Pathspecs) > 0 || !plainFilter(opts.Filter) {
		return nil, false
	}
	for _, p := range pairs {
		if !r.Trees.walkable(p) || len(p.From) != len(p.To) {
			return nil, false
		}
	}
	tr := &treeReader{r: r, ctx: ctx, trees: r.Trees}
	defer tr.close()
	res := make([][]DiffEntry, len(pairs))
	for i, p := range pairs {
		entries, ok := diffPair(tr, p)
		if !ok {
			return nil, false
		}
		res[i] = format(entries, opts)
	}
	return res, true
}

// plainFilter reports whether filter is one diffHeld applies itself:
// none, or some of the statuses it gives (A, D, M, T), to keep.
func plainFilter(filter string) bool {
	return strings.Trim(filter, "ADMT") == ""
}

// format applies opts' filter and format to raw entries.
func format(entries []DiffEntry, opts DiffTreeOptions) []DiffEntry {
	out := entries[:0]
	for _, e := range entries {
		if opts.Filter != "" && !strings.Contains(opts.Filter, e.Status) {
			continue
		}
		switch opts.Format {
		case DiffNameOnly:
			e = DiffEntry{Path: e.Path}
		case DiffNameStatus:
			e = DiffEntry{Status: e.Status, Path: e.Path}
		}
		out = append(out, e)
	}
	return out
}

// walked is two trees to compare at a directory.
type walked struct{ dir, from, to string }

// diffPair compares two trees a level at a time, reading each level's
// trees in one request. ok is false when a tree could not be read.
func diffPair(tr *treeReader, p TreePair) (entries []DiffEntry, ok bool) {
	if p.From == p.To {
		return nil, true
	}
	zero := strings.Repeat("0", len(p.From))
	var out []DiffEntry
	level := []walked{{"", p.From, p.To}}
	for len(level) > 0 {
		var ids []string
		for _, w := range level {
			ids = append(ids, w.from, w.to)
		}
		ids = slices.DeleteFunc(ids, func(id string) bool { return id == "" })
		bodies, ok := tr.bodies(ids)
		if !ok {
			return nil, false
		}
		byID := make(map[string][]byte, len(ids))
		for i, id := range ids {
			byID[id] = bodies[i]
		}
		var next []walked
		for _, w := range level {
			a, erra := readEntries(byID[w.from], len(p.From)/2, tr.from[:0])
			b, errb := readEntries(byID[w.to], len(p.From)/2, tr.to[:0])
			if erra != nil || errb != nil {
				return nil, false
			}
			tr.from, tr.to = a, b
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
func compareLevel(dir string, a, b []heldEntry, zero string) (sub []walked, leaves []DiffEntry) {
	join := func(name []byte) string {
		if dir == "" {
			return string(name)
		}
		return dir + "/" + string(name)
	}
	gone := func(e heldEntry) {
		if e.isTree() {
			sub = append(sub, walked{join(e.name), e.hex(), ""})
			return
		}
		leaves = append(leaves, DiffEntry{Status: "D", OldMode: e.modeText(), Mode: AbsentMode, OldOID: e.hex(), OID: zero, Path: join(e.name)})
	}
	added := func(e heldEntry) {
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

// heldEntry is one entry of a tree object, its mode made canonical. Its
// name and raw id are the tree's own bytes, read into a slice the reader
// keeps from one tree to the next (treeReader.from, .to), and an id is
// put in hex only when a difference needs it: a directory of 5,000
// entries, read for each window a rewind classifies, made two strings
// each and a new slice every time, most of a wide tree's classification
// in allocations and the page faults of their memory (docs/speed.md,
// "The rewind's commits made ahead").
type heldEntry struct {
	name, oid []byte
	mode      uint32
}

// hex is the entry's id as git prints it.
func (e heldEntry) hex() string { return hex.EncodeToString(e.oid) }

func (e heldEntry) isTree() bool { return e.mode == typeTree }

// compareKeys compares two entries in git's order of a tree's entries:
// by name, a tree's as if it ended in "/". It builds no string, where
// each comparison of two directories' entries made two name+"/".
func compareKeys(x, y heldEntry) int {
	n := min(len(x.name), len(y.name))
	if c := bytes.Compare(x.name[:n], y.name[:n]); c != 0 {
		return c
	}
	return cmp.Compare(x.keyAt(n), y.keyAt(n))
}

// keyAt is the byte at i of the name the entry sorts by, or -1 past its
// end (which sorts first).
func (e heldEntry) keyAt(i int) int {
	switch {
	case i < len(e.name):
		return int(e.name[i])
	case i == len(e.name) && e.isTree():
		return '/'
	}
	return -1
}

// modeText is the mode as diff-tree prints it: six octal digits.
func (e heldEntry) modeText() string {
	s := strconv.FormatUint(uint64(e.mode), 8)
	return strings.Repeat("0", 6-len(s)) + s
}

// readEntries reads a tree object's body ("<mode> <name>\0<raw id>"
// repeated, ids of idLen bytes) in git's order of its entries, appending
// them to out. A nil body is a side the directory is missing from: no
// entries.
func readEntries(body []byte, idLen int, out []heldEntry) ([]heldEntry, error) {
	rest := body
	for len(rest) > 0 {
		sp := bytes.IndexByte(rest, ' ')
		nul := bytes.IndexByte(rest, 0)
		if sp < 0 || nul < sp || len(rest) < nul+1+idLen {
			return nil, errBadTree
		}
		m, err := strconv.ParseUint(string(rest[:sp]), 8, 32)
		if err != nil {
			return nil, errBadTree
		}
		out = append(out, heldEntry{name: rest[sp+1 : nul], oid: rest[nul+1 : nul+1+idLen], mode: canonMode(uint32(m))})
		rest = rest[nul+1+idLen:]
	}
	// git writes a tree's entries in this order; only a tree written
	// otherwise needs sorting.
	if !slices.IsSortedFunc(out, compareKeys) {
		slices.SortStableFunc(out, compareKeys)
	}
	return out, nil
}

var errBadTree = errors.New("malformed tree object")

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

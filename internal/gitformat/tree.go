package gitformat

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"io/fs"
	"slices"
	"strings"
)

// Entry is one entry of a tree: its mode as git writes it in tree objects
// ("100644", "40000", ...) and its object id in hex.
type Entry struct {
	Mode, OID string
}

// IsTree reports whether the entry is a directory.
func (e Entry) IsTree() bool { return e.Mode == "40000" || e.Mode == "040000" }

// IsBlob reports whether the entry is a file or a symlink: neither a
// directory nor a submodule.
func (e Entry) IsBlob() bool {
	return !e.IsTree() && e.Mode != "160000"
}

// FileMode is the mode git gives a regular file of permissions perm
// (core.fileMode on): 100755 when its owner may execute it, whatever its
// group and others may do (create_ce_mode), else 100644.
func FileMode(perm fs.FileMode) string {
	if perm&0o100 != 0 {
		return "100755"
	}
	return "100644"
}

// eachEntry calls fn with the mode, name and raw id of each entry of a
// tree object's body ("<mode> <name>\0<raw id>" repeated, ids of idLen
// bytes), in the body's order, until fn returns false. The slices alias
// body.
func eachEntry(body []byte, idLen int, fn func(mode, name, id []byte) bool) error {
	for len(body) > 0 {
		sp := bytes.IndexByte(body, ' ')
		nul := bytes.IndexByte(body, 0)
		if sp < 0 || nul < sp || len(body) < nul+1+idLen {
			return errBadTree
		}
		if !fn(body[:sp], body[sp+1:nul], body[nul+1:nul+1+idLen]) {
			return nil
		}
		body = body[nul+1+idLen:]
	}
	return nil
}

var errBadTree = fmt.Errorf("malformed tree object")

// ParseTree reads the body of a tree object, with raw ids of idLen bytes,
// into its entries by name.
func ParseTree(body []byte, idLen int) (map[string]Entry, error) {
	entries := map[string]Entry{}
	err := eachEntry(body, idLen, func(mode, name, id []byte) bool {
		entries[string(name)] = Entry{Mode: string(mode), OID: hex.EncodeToString(id)}
		return true
	})
	if err != nil {
		return nil, err
	}
	return entries, nil
}

// Subtrees lists the entries of a tree's body that are trees: name to id.
// A body that does not parse gives the entries before the fault.
func Subtrees(body []byte, idLen int) map[string]string {
	m := map[string]string{}
	eachEntry(body, idLen, func(mode, name, id []byte) bool {
		if kind := string(mode); kind == "40000" || kind == "040000" { // as IsTree
			m[string(name)] = hex.EncodeToString(id)
		}
		return true
	})
	return m
}

// CheckName says why name cannot be an entry of a tree: it must be one
// path component.
func CheckName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\x00") {
		return fmt.Errorf("a tree entry: %q is not a name", name)
	}
	return nil
}

// EncodeTree writes entries as a tree object body, in git's order: by
// name, where a tree's name sorts as if it ended in "/". An id must be 40
// or 64 hex digits; each name is taken to be one path component (a
// capture's come from git and the scan; CheckName is for others). Each
// name's sort
// key is made once: a directory of 5,000 directories, as a generated or
// vendored tree has, took most of a per-tool capture's own time when the
// key was made at every comparison.
func EncodeTree(entries map[string]Entry) ([]byte, error) {
	type keyed struct{ key, name string }
	order := make([]keyed, 0, len(entries))
	size := 0
	for name, e := range entries {
		key := name
		if e.IsTree() {
			key += "/"
		}
		order = append(order, keyed{key, name})
		size += len(e.Mode) + len(name) + 2 + len(e.OID)/2
	}
	slices.SortFunc(order, func(a, b keyed) int { return strings.Compare(a.key, b.key) })
	b := make([]byte, 0, size)
	raw := make([]byte, 32)
	for _, k := range order {
		e := entries[k.name]
		if len(e.OID) != 40 && len(e.OID) != 64 {
			return nil, fmt.Errorf("a tree entry %q: %q is no object id", k.name, e.OID)
		}
		n, err := hex.Decode(raw, []byte(e.OID))
		if err != nil {
			return nil, fmt.Errorf("a tree entry %q: %q is no object id", k.name, e.OID)
		}
		b = append(b, strings.TrimPrefix(e.Mode, "0")...)
		b = append(b, ' ')
		b = append(b, k.name...)
		b = append(b, 0)
		b = append(b, raw[:n]...)
	}
	return b, nil
}

package capture

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"io/fs"
	"slices"
	"strings"
)

// treeEntry is one entry of a git tree: its mode as git writes it in tree
// objects ("100644", "40000", ...) and its object id in hex.
type treeEntry struct {
	mode, oid string
}

// fileMode is the mode git gives a regular file of permissions perm
// (core.fileMode on): 100755 when its owner may execute it, whatever its
// group and others may do (create_ce_mode), else 100644.
func fileMode(perm fs.FileMode) string {
	if perm&0o100 != 0 {
		return "100755"
	}
	return "100644"
}

func (e treeEntry) isTree() bool { return e.mode == "40000" || e.mode == "040000" }

func (e treeEntry) isBlob() bool {
	return !e.isTree() && e.mode != "160000"
}

// parseTree reads the body of a tree object as `git cat-file --batch`
// prints it: "<mode> <name>\0<raw id>" repeated, with raw ids of hashLen
// bytes.
func parseTree(body []byte, hashLen int) (map[string]treeEntry, error) {
	entries := map[string]treeEntry{}
	for len(body) > 0 {
		sp := bytes.IndexByte(body, ' ')
		nul := bytes.IndexByte(body, 0)
		if sp < 0 || nul < sp || len(body) < nul+1+hashLen {
			return nil, fmt.Errorf("malformed tree object")
		}
		entries[string(body[sp+1:nul])] = treeEntry{
			mode: string(body[:sp]),
			oid:  hex.EncodeToString(body[nul+1 : nul+1+hashLen]),
		}
		body = body[nul+1+hashLen:]
	}
	return entries, nil
}

// encodeTree writes entries as a tree object body, in git's order: by name,
// where a tree's name sorts as if it ended in "/". Each name's sort key is
// made once: a directory of 5,000 directories, as a generated or vendored
// tree has, took most of a per-tool capture's own time when the key was
// made at every comparison.
func encodeTree(entries map[string]treeEntry) ([]byte, error) {
	type keyed struct{ key, name string }
	order := make([]keyed, 0, len(entries))
	size := 0
	for name, e := range entries {
		key := name
		if e.isTree() {
			key += "/"
		}
		order = append(order, keyed{key, name})
		size += len(e.mode) + len(name) + 2 + len(e.oid)/2
	}
	slices.SortFunc(order, func(a, b keyed) int { return strings.Compare(a.key, b.key) })
	b := make([]byte, 0, size)
	raw := make([]byte, 32)
	for _, k := range order {
		e := entries[k.name]
		if len(e.oid) > 2*len(raw) {
			return nil, fmt.Errorf("%s: %q is no object id", k.name, e.oid)
		}
		n, err := hex.Decode(raw, []byte(e.oid))
		if err != nil {
			return nil, err
		}
		b = append(b, strings.TrimPrefix(e.mode, "0")...)
		b = append(b, ' ')
		b = append(b, k.name...)
		b = append(b, 0)
		b = append(b, raw[:n]...)
	}
	return b, nil
}

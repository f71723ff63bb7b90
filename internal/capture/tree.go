package capture

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io/fs"
	"slices"
	"strconv"
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
// where a tree's name sorts as if it ended in "/".
func encodeTree(entries map[string]treeEntry) ([]byte, error) {
	names := make([]string, 0, len(entries))
	for name := range entries {
		names = append(names, name)
	}
	key := func(name string) string {
		if entries[name].isTree() {
			return name + "/"
		}
		return name
	}
	slices.SortFunc(names, func(a, b string) int { return strings.Compare(key(a), key(b)) })
	var b bytes.Buffer
	for _, name := range names {
		e := entries[name]
		raw, err := hex.DecodeString(e.oid)
		if err != nil {
			return nil, err
		}
		b.WriteString(strings.TrimPrefix(e.mode, "0"))
		b.WriteByte(' ')
		b.WriteString(name)
		b.WriteByte(0)
		b.Write(raw)
	}
	return b.Bytes(), nil
}

// objectID is the id git gives an object of type kind with body: the
// repository's hash (SHA-1, or SHA-256 for 64-digit ids) of
// "<kind> <size>\0<body>".
func objectID(kind string, body []byte, hexLen int) string {
	var h hash.Hash = sha1.New()
	if hexLen == 64 {
		h = sha256.New()
	}
	h.Write([]byte(kind + " " + strconv.Itoa(len(body)) + "\x00"))
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

// mktreeLine is one entry as `git mktree` reads it: "<mode> <type>
// <oid>\t<name>", the name C-quoted when it holds a byte that would break
// the line.
func mktreeLine(name string, e treeEntry) string {
	kind := "blob"
	switch {
	case e.isTree():
		kind = "tree"
	case e.mode == "160000":
		kind = "commit"
	}
	mode := e.mode
	if mode == "40000" {
		mode = "040000"
	}
	return mode + " " + kind + " " + e.oid + "\t" + cQuote(name) + "\n"
}

// cQuote quotes name the way git's unquote_c_style reads it, when it must:
// a name starting with a double quote or holding a control character,
// backslash or quote.
func cQuote(name string) string {
	if !strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f || r == '"' || r == '\\' }) {
		return name
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, "\\%03o", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

package git

import (
	"context"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
)

// WriteLoose stores objs as loose objects, each synced before git names
// it: it hands git a pack of them (encodePack) to unpack, in one
// `git unpack-objects`, which reads the pinned core.fsync as every git
// command that writes objects does, but one: `git mktree` reads no
// configuration at all, so the trees it wrote were renamed into place
// unsynced whatever core.fsync said, and a power loss left them empty
// under their names (TestPowerLoss: a capture that only deleted files, a
// push's records). An object git has already is not written again. The
// ids the caller gave must be the objects' (encodePack checks them).
func (r *Runner) WriteLoose(ctx context.Context, objs []Object, sha256 bool) error {
	if len(objs) == 0 {
		return nil
	}
	p, err := encodePack(objs, sha256)
	if err != nil {
		return err
	}
	_, err = r.Run(ctx, Cmd{Args: []string{"unpack-objects", "-q"}, Stdin: p.data})
	return err
}

// StoreTree stores a tree of entries (one level: each Path a plain name)
// and returns its id: `git hash-object -t tree`, which reads core.fsync
// (see WriteLoose for mktree, which does not).
func (r *Runner) StoreTree(ctx context.Context, entries []TreeEntry) (string, error) {
	body, err := TreeBody(entries)
	if err != nil {
		return "", err
	}
	out, err := r.Run(ctx, Cmd{Args: []string{"hash-object", "-w", "-t", "tree", "--stdin"}, Stdin: body})
	return strings.TrimSpace(string(out)), err
}

// TreeBody is the body git stores for a tree of entries (each Path a
// plain name): "MODE NAME\0" and the raw id, in git's order, where a
// tree's name sorts as if it ended in a slash.
func TreeBody(entries []TreeEntry) ([]byte, error) {
	key := func(e TreeEntry) string {
		if e.Type == "tree" {
			return e.Path + "/"
		}
		return e.Path
	}
	sorted := slices.Clone(entries)
	slices.SortFunc(sorted, func(a, b TreeEntry) int { return strings.Compare(key(a), key(b)) })
	var b []byte
	for i, e := range sorted {
		if strings.ContainsAny(e.Path, "/\x00") || e.Path == "" || e.Path == "." || e.Path == ".." {
			return nil, fmt.Errorf("a tree entry: %q is not a name", e.Path)
		}
		if i > 0 && sorted[i-1].Path == e.Path {
			return nil, fmt.Errorf("a tree entry: %q twice", e.Path)
		}
		raw, err := hex.DecodeString(e.OID)
		if err != nil || (len(raw) != 20 && len(raw) != 32) {
			return nil, fmt.Errorf("a tree entry %q: %q is no object id", e.Path, e.OID)
		}
		b = append(b, strings.TrimPrefix(e.Mode, "0")...)
		b = append(b, ' ')
		b = append(b, e.Path...)
		b = append(b, 0)
		b = append(b, raw...)
	}
	return b, nil
}

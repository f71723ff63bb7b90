package git

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/gitformat"
)

// WritePack stores objs (their Type, "blob", "tree" or "commit", and
// Body) in one new pack of the repository (gitformat.EncodePack).
// Storing a hundred new objects loose creates a hundred files (create,
// write, link, unlink each); a pack is two.
//
// Where the runner knows the object directory (Objects), the pack and
// its index are written here (gitformat's Pack.Store), as git's own pack
// writers (pack-objects, fast-import) write theirs: each object is named
// by the hash of the bytes packed, and an ID the caller gave that
// differs is an error. Otherwise `git index-pack --stdin` is fed the
// pack and names the objects. Neither checks the objects (--fsck-objects
// would, and would also refuse content git itself commits, such as a
// .gitmodules whose url starts with a dash): the caller gives
// well-formed objects, as mktree and update-index would write them
// (gitformat's TestEncodeTreeAgreesWithMktree).
//
// Either way the pack and its index are synced before they are renamed
// into place, as git syncs its own (core.fsync's default): a sync of the
// filesystem after the rename would not keep a power loss from leaving
// the names with their data missing (docs/fault-safety.md). sha256 is
// the repository's hash function.
func (r *Runner) WritePack(ctx context.Context, objs []Object, sha256 bool) error {
	p, err := gitformat.EncodePack(packed(objs), sha256)
	if err != nil {
		return err
	}
	defer r.Written.Begin()()
	defer r.Written.Pack() // whether or not it failed half way, before the write is done
	if r.Objects != "" && len(p.Bytes()) < gitformat.MaxStored {
		end := r.Phase("pack")
		defer end()
		return p.Store(filepath.Join(r.Objects, "pack"))
	}
	_, err = r.Run(ctx, Cmd{
		Args:  []string{"index-pack", "--stdin"},
		Older: true, // it may be the work aside, and reads no new object
		Stdin: p.Bytes(),
		Named: true,
	})
	return err
}

// packed is objs as objects to pack.
func packed(objs []Object) []gitformat.Object {
	out := make([]gitformat.Object, len(objs))
	for i, o := range objs {
		out[i] = gitformat.Object{ID: o.ID, Type: o.Type, Body: o.Body}
	}
	return out
}

// WriteLoose stores objs as loose objects, each synced before git names
// it: it hands git a pack of them (gitformat.EncodePack) to unpack, in
// one `git unpack-objects`, which reads the pinned core.fsync as every
// git command that writes objects does, but one: `git mktree` reads no
// configuration at all, so the trees it wrote were renamed into place
// unsynced whatever core.fsync said, and a power loss left them empty
// under their names (TestPowerLoss: a capture that only deleted files, a
// push's records). An object git has already is not written again. The
// ids the caller gave must be the objects' (EncodePack checks them).
func (r *Runner) WriteLoose(ctx context.Context, objs []Object, sha256 bool) error {
	if len(objs) == 0 {
		return nil
	}
	p, err := gitformat.EncodePack(packed(objs), sha256)
	if err != nil {
		return err
	}
	_, err = r.Run(ctx, Cmd{Args: []string{"unpack-objects", "-q"}, Stdin: p.Bytes(), Named: true})
	ids := make([]string, len(objs))
	for i, o := range objs {
		ids[i] = o.ID
	}
	r.Written.Have(ids...) // git writes none it has, perhaps unsynced
	return err
}

// StoreTree stores a tree of entries (one level: each Path a plain name)
// and returns its id: `git hash-object -t tree`, which reads core.fsync
// (see WriteLoose for mktree, which does not).
func (r *Runner) StoreTree(ctx context.Context, entries []TreeEntry) (string, error) {
	byName := make(map[string]gitformat.Entry, len(entries))
	for _, e := range entries {
		if _, twice := byName[e.Path]; twice {
			return "", fmt.Errorf("a tree entry: %q twice", e.Path)
		}
		if err := gitformat.CheckName(e.Path); err != nil {
			return "", err
		}
		byName[e.Path] = gitformat.Entry{Mode: e.Mode, OID: e.OID}
	}
	body, err := gitformat.EncodeTree(byName)
	if err != nil {
		return "", err
	}
	out, err := r.Run(ctx, Cmd{Args: []string{"hash-object", "-w", "-t", "tree", "--stdin"}, Stdin: body})
	return strings.TrimSpace(string(out)), err
}

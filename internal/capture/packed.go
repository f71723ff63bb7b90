package capture

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/git-checkpoint/git-checkpoint/internal/git"
)

// New objects in one pack. A capture of a hundred edited files stores a
// hundred blobs and about as many trees; stored loose, each is a file of
// its own (create, write, link, unlink: 0.3-1 ms apiece on a busy disk),
// which made them most of a rewind of 100 files (docs/speed.md). When
// packMin or more are new they go into one pack instead (git.WritePack):
//
//   - Trees: splice.write computes them, so it packs their bodies.
//   - Blobs: where a file's bytes are its blob (no conversion may apply:
//     mayConvert), packContent reads the files and packs them before
//     update-index hashes them; update-index, finding each blob stored,
//     writes nothing. It stays the one that decides the entries (modes,
//     what a file held when it was hashed): a file that changed between
//     the two reads gets its new content stored loose, as without the
//     pack, and its earlier bytes stay unreferenced in the pack like any
//     object a capture wrote and no checkpoint kept.
//
// Content git holds already is packed again where the capture cannot
// know it cheaply: asking git (cat-file --batch-check) costs more than the
// pack it would spare, since git reads its pack directory again for each
// object it does not find (28 ms for the 156 new trees of a 100-file
// rewind at 100,000 files, against 10 ms for their pack). So the scan
// after a rewind stores the restored files' blobs and trees once more, in
// a pack whose objects checkpoint.packEvery's roll-up keeps once; a copy
// in a new pack also keeps a gc running meanwhile from pruning them, as
// git's own rewrite of an existing object does. Left out where it is
// known: a file whose bytes are its base's blob (only its stat data
// changed), and the capture after a rewind, whose plan names the content
// it wrote.

// packMin is the fewest new objects a capture stores in a pack of their
// own (git.WritePack) rather than one file each. A pack costs a process
// and two files whatever it holds, and every pack is one more that each
// later git process may open until checkpoint.packEvery rolls the small
// ones up: the one-file edits of per-tool captures (a blob and a few
// trees) stay loose, the hundred files a turn or a rewind changes (a
// hundred blobs and as many trees) go into a pack.
const packMin = 32

// unique is objs without a second copy of any object (two directories
// of the same content are one tree).
func unique(objs []git.Object) []git.Object {
	seen := map[string]bool{}
	var out []git.Object
	for _, o := range objs {
		if !seen[o.ID] {
			seen[o.ID] = true
			out = append(out, o)
		}
	}
	return out
}

func ids(objs []git.Object) []string {
	out := make([]string, len(objs))
	for i, o := range objs {
		out[i] = o.ID
	}
	return out
}

const (
	maxPackedFile  = 1 << 20  // a larger file is left to update-index
	maxPackedBytes = 64 << 20 // the most content one pack holds
)

// packContent stores the content of the items hashInto is about to hash
// in one pack, when there are packMin of them or more. hexLen is the
// length of the repository's object ids. It never fails: what it could
// not store, update-index stores loose.
func (c *Capturer) packContent(ctx context.Context, items []*named, hexLen int) {
	var objs []git.Object
	total := 0
	for _, it := range items {
		if it.skip || !it.present || it.known || it.size > maxPackedFile || total+int(it.size) > maxPackedBytes {
			continue
		}
		body, ok := content(filepath.Join(c.Repo.Top, filepath.FromSlash(it.path)), it.fi)
		if !ok {
			continue
		}
		id := objectID("blob", body, hexLen)
		if it.inBase && id == it.base.oid {
			continue // only its stat data changed: git holds it
		}
		total += len(body)
		objs = append(objs, git.Object{ID: id, Type: "blob", Body: body})
	}
	if objs = unique(objs); len(objs) >= packMin {
		c.Git.WritePack(ctx, objs, hexLen == 64)
	}
}

// content is the blob git stores for the file at p, seen as fi, when no
// conversion applies: a regular file's bytes, a symlink's target.
func content(p string, fi fs.FileInfo) ([]byte, bool) {
	switch {
	case fi == nil:
		return nil, false
	case fi.Mode().IsRegular():
		b, err := os.ReadFile(p)
		return b, err == nil
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(p)
		return []byte(target), err == nil
	}
	return nil, false
}

// rawLen is hashNamed's rawLen: the length of id, an object id of the
// repository, where no conversion may apply to the files; 0 elsewhere.
func (c *Capturer) rawLen(st *indexState, id string) int {
	if c.mayConvert(st) {
		return 0
	}
	return len(id)
}

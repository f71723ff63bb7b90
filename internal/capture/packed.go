package capture

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/gitformat"
)

// New objects in one pack. A capture of a hundred edited files stores a
// hundred blobs and about as many trees; stored loose, each is a file of
// its own (create, write, link, unlink), which made them most of a rewind
// of 100 files (docs/speed.md, "New objects in one pack"). When there are
// blobs to store, or packMin trees or more, they go into one pack instead
// (git.WritePack), blobs and trees together:
//
//   - Trees: splice.write computes them, so it packs their bodies.
//   - Blobs: where git would store a file's bytes as they are (no
//     conversion may apply: mayConvert) and give it the mode its own stat
//     data say (core.fileMode and core.symlinks are pinned on),
//     hashOwn reads the files and computes their entries as git's
//     update-index would, instead of running it and then ls-files to read
//     its answers (a per-tool capture reads its files before the lock:
//     prehashOwn). Elsewhere update-index hashes them and stores them
//     loose, as before.
//
// Content git holds already (a file put back as its base has it, the files
// a rewind wrote, which its check after reads again) is not stored: the
// blob of a file whose bytes are its base's is left out, and when the new
// tree is one git holds (the rewind's target) nothing is written. A tree
// put back as it was elsewhere is stored again beside the new ones; asking
// git which exist (cat-file --batch-check) costs more than the pack it
// would spare, since git reads its pack directory again for each object it
// does not find (docs/speed.md, "Tried and left out").

// packMin is the fewest new trees, with no blob, a capture stores in a
// pack of their own (git.WritePack) rather than loose (git.WriteLoose,
// each synced before its name). With blobs the tool hashed, a pack is
// always made, however few the objects: the one process that stores a
// one-file edit's blob and trees, where update-index, ls-files and mktree
// were three, most of a per-tool capture where process starts are dear
// (docs/speed.md, "Every process counts"). Every pack is one more that git
// may open until checkpoint.packEvery (64) rolls the small ones up with
// the loose objects (at least the commits are loose).
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
	maxPackedBytes = 64 << 20 // the most content hashOwn holds at once
)

// hashOwn gives the items about to be hashed their entries from the files'
// own bytes and stat data, and returns the blobs to store (the ones their
// base does not hold). A regular file is opened without following a
// symlink and its mode read from the open file (fileMode); a symlink's
// blob is its target. A file gone since it was looked at is no longer
// present, as update-index would find it. It reports false, having
// changed no item, where update-index must do it: a large file, or one
// that is no longer what it was (a directory, a symlink where a file was).
func (c *Capturer) hashOwn(items []*named, hexLen int) ([]git.Object, bool) {
	var todo []*named
	for _, it := range items {
		if it.skip || !it.present || it.known {
			continue
		}
		if it.size > maxPackedFile {
			return nil, false
		}
		todo = append(todo, it)
	}
	entries := make([]gitformat.Entry, len(todo))
	bodies := make([][]byte, len(todo))
	total := 0
	for i, it := range todo {
		body, mode, err := readEntry(filepath.Join(c.Repo.Top, filepath.FromSlash(it.path)), it.fi)
		if errors.Is(err, fs.ErrNotExist) {
			continue // gone: no entry
		}
		if total += len(body); err != nil || total > maxPackedBytes {
			return nil, false
		}
		entries[i], bodies[i] = gitformat.Entry{Mode: mode, OID: gitformat.ID("blob", body, hexLen)}, body
	}
	var blobs []git.Object
	for i, it := range todo {
		if entries[i].Mode == "" {
			it.present = false
			continue
		}
		it.entry = entries[i]
		if !it.inBase || it.base.OID != it.entry.OID {
			blobs = append(blobs, git.Object{ID: it.entry.OID, Type: "blob", Body: bodies[i]})
		}
	}
	return unique(blobs), true
}

// readEntry reads what git stores for the file at p, which was seen as
// fi: a symlink's target, or a regular file's bytes and its mode.
func readEntry(p string, fi fs.FileInfo) ([]byte, string, error) {
	if fi.Mode()&fs.ModeSymlink != 0 {
		target, err := os.Readlink(p)
		return []byte(target), "120000", err
	}
	// O_NONBLOCK: a FIFO put there since would otherwise block the open
	// until something writes to it; it has no effect on a regular file.
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, "", err
	}
	if !st.Mode().IsRegular() {
		return nil, "", fmt.Errorf("%s is no longer a regular file", p)
	}
	// Sized as the file is, as os.ReadFile does: io.ReadAll's buffer,
	// grown from 512 bytes, copies and clears memory at every doubling,
	// which a rewind's check paid for every file.
	var body bytes.Buffer
	body.Grow(int(st.Size()) + bytes.MinRead) // room left to read EOF
	_, err = body.ReadFrom(f)
	return body.Bytes(), gitformat.FileMode(st.Mode()), err
}

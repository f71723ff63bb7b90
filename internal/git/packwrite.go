package git

import (
	"bytes"
	"compress/zlib"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"runtime"
	"sync"
)

// packTypes are the type numbers of a pack's object headers.
var packTypes = map[string]byte{"commit": 1, "tree": 2, "blob": 3}

// WritePack stores objs (their Type, "blob", "tree" or "commit", and
// Body; the ID is git's to give) in one new pack of the repository, by
// feeding `git index-pack --stdin` a pack built here: version 2, every
// object whole, at zlib's fastest level like the loose objects the pinned
// core.looseCompression writes, or stored when small (see encodePack).
// Storing a hundred new objects loose creates a hundred files (create,
// write, link, unlink each: 0.3-1 ms apiece on a busy disk); a pack is
// two. git hashes each object as it indexes it, but does not check it
// (--fsck-objects would, and would also refuse content git itself
// commits, such as a .gitmodules whose url starts with a dash): the
// caller gives well-formed objects, as mktree and update-index would
// write them (capture's TestEncodeTreeAgreesWithMktree).
//
// git would fsync the pack and its index (core.fsync's default); it
// does not fsync loose objects, and a capture syncs the filesystem after
// its ref (see docs/fault-safety.md) for both alike, so the pack is not
// synced twice. sha256 is the repository's hash function.
func (r *Runner) WritePack(ctx context.Context, objs []Object, sha256 bool) error {
	pack, err := encodePack(objs, sha256)
	if err != nil {
		return err
	}
	_, err = r.Run(ctx, Cmd{
		Args:   []string{"index-pack", "--stdin"},
		Older:  true, // it may be the work aside, and reads no new object
		Config: []string{"core.fsync=-pack,-pack-metadata"},
		Stdin:  pack,
	})
	return err
}

// encodePack builds a pack of objs: "PACK", version 2 and the count, each
// object's header (type and size) and zlib stream, then the hash of all
// that. The objects are compressed on every core at once: Go's zlib
// spends about 70 us on each stream whatever its size (a Huffman table
// of its own), 11 ms for the 156 trees of a 100-file capture on one core.
// An object smaller than storedMax is stored in its stream uncompressed:
// a tree of 20 entries is mostly raw ids, which zlib shrinks by a
// quarter at that cost.
func encodePack(objs []Object, useSHA256 bool) ([]byte, error) {
	streams := make([][]byte, len(objs))
	errs := make([]error, len(objs))
	var wg sync.WaitGroup
	workers := min(runtime.GOMAXPROCS(0), len(objs))
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fast, _ := zlib.NewWriterLevel(nil, zlib.BestSpeed)
			stored, _ := zlib.NewWriterLevel(nil, zlib.NoCompression)
			for i := w; i < len(objs); i += workers {
				zw := fast
				if len(objs[i].Body) < storedMax {
					zw = stored
				}
				streams[i], errs[i] = compress(zw, objs[i].Body)
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString("PACK")
	binary.Write(&b, binary.BigEndian, uint32(2))
	binary.Write(&b, binary.BigEndian, uint32(len(objs)))
	for i, o := range objs {
		kind, ok := packTypes[o.Type]
		if !ok {
			return nil, fmt.Errorf("cannot pack an object of type %q", o.Type)
		}
		b.Write(objectHeader(kind, uint64(len(o.Body))))
		b.Write(streams[i])
	}
	var h hash.Hash = sha1.New()
	if useSHA256 {
		h = sha256.New()
	}
	h.Write(b.Bytes())
	b.Write(h.Sum(nil))
	return b.Bytes(), nil
}

// storedMax is the size under which an object is stored uncompressed.
const storedMax = 1024

// compress returns body as one zlib stream written by zw.
func compress(zw *zlib.Writer, body []byte) ([]byte, error) {
	var b bytes.Buffer
	zw.Reset(&b)
	if _, err := zw.Write(body); err != nil {
		return nil, err
	}
	err := zw.Close()
	return b.Bytes(), err
}

// objectHeader is a pack entry's header: the type in bits 4-6 of the
// first byte, the size in its low 4 bits and then 7 bits a byte, low bits
// first, the high bit of each byte saying another follows.
func objectHeader(kind byte, size uint64) []byte {
	c := kind<<4 | byte(size&0x0f)
	size >>= 4
	var out []byte
	for size > 0 {
		out = append(out, c|0x80)
		c = byte(size & 0x7f)
		size >>= 7
	}
	return append(out, c)
}

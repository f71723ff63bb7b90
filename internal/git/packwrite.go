package git

import (
	"bytes"
	"compress/zlib"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash/adler32"
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
// that. An object smaller than storedMax is stored in its stream
// uncompressed (storedStream): a tree of 20 entries is mostly raw ids,
// which zlib shrinks by a quarter for about 70 us of Go's zlib per
// stream, whatever its size (a Huffman table of its own). The others are
// compressed at zlib's fastest level (compressAll).
func encodePack(objs []Object, useSHA256 bool) ([]byte, error) {
	streams := make([][]byte, len(objs))
	var large []int
	for i, o := range objs {
		if len(o.Body) < storedMax {
			streams[i] = storedStream(o.Body)
		} else {
			large = append(large, i)
		}
	}
	if err := compressAll(objs, large, streams); err != nil {
		return nil, err
	}
	h := sha1.New()
	if useSHA256 {
		h = sha256.New()
	}
	size := 12 + h.Size()
	headers := make([][]byte, len(objs))
	for i, o := range objs {
		kind, ok := packTypes[o.Type]
		if !ok {
			return nil, fmt.Errorf("cannot pack an object of type %q", o.Type)
		}
		headers[i] = objectHeader(kind, uint64(len(o.Body)))
		size += len(headers[i]) + len(streams[i])
	}
	b := bytes.NewBuffer(make([]byte, 0, size))
	b.WriteString("PACK")
	binary.Write(b, binary.BigEndian, uint32(2))
	binary.Write(b, binary.BigEndian, uint32(len(objs)))
	for i := range objs {
		b.Write(headers[i])
		b.Write(streams[i])
	}
	h.Write(b.Bytes())
	b.Write(h.Sum(nil))
	return b.Bytes(), nil
}

// storedMax is the size under which an object is stored uncompressed.
const storedMax = 1024

// compressAll compresses the objects at the indexes idx into streams,
// with one compressor: more, on other cores, each cost a process about
// 850 KB of fresh memory, and took cores from the work beside them (a
// rewind plans while its scan's pack is written; docs/speed.md,
// "Discovery, kept; streams stored by hand").
func compressAll(objs []Object, idx []int, streams [][]byte) error {
	if len(idx) == 0 {
		return nil
	}
	zw, _ := zlib.NewWriterLevel(nil, zlib.BestSpeed)
	for _, i := range idx {
		var err error
		if streams[i], err = compress(zw, objs[i].Body); err != nil {
			return err
		}
	}
	return nil
}

// compress returns body as one zlib stream written by zw.
func compress(zw *zlib.Writer, body []byte) ([]byte, error) {
	b := bytes.NewBuffer(make([]byte, 0, len(body)/2+64))
	zw.Reset(b)
	if _, err := zw.Write(body); err != nil {
		return nil, err
	}
	err := zw.Close()
	return b.Bytes(), err
}

// storedStream is body as a zlib stream of stored deflate blocks, the
// stream Go's zlib writes at NoCompression, without the compressor (about
// 700 KB) it allocates to do so: RFC 1950's header (deflate, a 32 KiB
// window, the fastest level, its check bits), blocks of at most 65,535
// bytes each after a byte saying whether it is the last, its length and
// that length's complement, little-endian (RFC 1951, 3.2.4), and the
// Adler-32 of body, big-endian. An empty body is one empty last block.
func storedStream(body []byte) []byte {
	const maxBlock = 65535
	blocks := max(1, (len(body)+maxBlock-1)/maxBlock)
	out := make([]byte, 0, 2+5*blocks+len(body)+4)
	out = append(out, 0x78, 0x01)
	rest := body
	for {
		n := min(len(rest), maxBlock)
		last := byte(0)
		if n == len(rest) {
			last = 1
		}
		out = append(out, last)
		out = binary.LittleEndian.AppendUint16(out, uint16(n))
		out = binary.LittleEndian.AppendUint16(out, ^uint16(n))
		out = append(out, rest[:n]...)
		rest = rest[n:]
		if last == 1 {
			break
		}
	}
	return binary.BigEndian.AppendUint32(out, adler32.Checksum(body))
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

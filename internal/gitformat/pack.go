package gitformat

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"hash/adler32"
	"hash/crc32"
)

// packTypes are the type numbers of a pack's object headers.
var packTypes = map[string]byte{"commit": 1, "tree": 2, "blob": 3}

// MaxStored is the size of the largest pack Store writes: its index has
// no table of 8-byte offsets. A larger one is for git index-pack. A
// capture adds at most checkpoint.maxTotalBytes (512 MiB by default).
const MaxStored = 1<<31 - 1

// Object is an object to pack: its type ("blob", "tree" or "commit"),
// its body and, when the caller knows it, its id, which must then be the
// one git gives it.
type Object struct {
	ID, Type string
	Body     []byte
}

// A Pack is the bytes of a pack file (version 2, every object whole)
// and, for its index, each object's name, offset in the file and the
// CRC-32 of its entry there.
type Pack struct {
	data    []byte
	newHash func() hash.Hash
	ids     [][]byte
	offsets []uint64
	crcs    []uint32
}

// EncodePack builds a pack of objs: "PACK", version 2 and the count, each
// object's header (type and size) and zlib stream, then the hash of all
// that. An object smaller than storedMax is stored in its stream
// uncompressed (storedStream): a tree of 20 entries is mostly raw ids,
// which zlib shrinks by a quarter at a fixed cost per stream, whatever
// its size (a Huffman table of its own), larger than the saving. The others are
// compressed at zlib's fastest level (compressAll). Each object is named
// by the hash of its type, size and body, which an ID given must match.
func EncodePack(objs []Object, useSHA256 bool) (*Pack, error) {
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
	hexLen := 40
	if useSHA256 {
		hexLen = 64
	}
	p := &Pack{newHash: hashOf(hexLen), ids: make([][]byte, len(objs)),
		offsets: make([]uint64, len(objs)), crcs: make([]uint32, len(objs))}
	h := p.newHash()
	size := 12 + h.Size()
	headers := make([][]byte, len(objs))
	for i, o := range objs {
		kind, ok := packTypes[o.Type]
		if !ok {
			return nil, fmt.Errorf("cannot pack an object of type %q", o.Type)
		}
		headers[i] = objectHeader(kind, uint64(len(o.Body)))
		size += len(headers[i]) + len(streams[i])
		p.ids[i] = sum(p.newHash, o.Type, o.Body)
		if o.ID != "" && o.ID != hex.EncodeToString(p.ids[i]) {
			return nil, fmt.Errorf("%s %s holds what git names %x", o.Type, o.ID, p.ids[i])
		}
	}
	b := bytes.NewBuffer(make([]byte, 0, size))
	b.WriteString("PACK")
	binary.Write(b, binary.BigEndian, uint32(2))
	binary.Write(b, binary.BigEndian, uint32(len(objs)))
	for i := range objs {
		p.offsets[i] = uint64(b.Len())
		b.Write(headers[i])
		b.Write(streams[i])
		p.crcs[i] = crc32.ChecksumIEEE(b.Bytes()[p.offsets[i]:])
	}
	h.Write(b.Bytes())
	b.Write(h.Sum(nil))
	p.data = b.Bytes()
	return p, nil
}

// Bytes is the pack file: what `git index-pack --stdin` and `git
// unpack-objects` read.
func (p *Pack) Bytes() []byte { return p.data }

// storedMax is the size under which an object is stored uncompressed.
const storedMax = 1024

// compressAll compresses the objects at the indexes idx into streams,
// with one compressor: more, on other cores, each cost a process about
// 850 KB of fresh memory, and took cores from the work beside them (a
// rewind plans while its scan's pack is written; docs/speed.md,
// "The configuration and discovery, kept; streams stored by hand").
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

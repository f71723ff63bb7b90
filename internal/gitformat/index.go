package gitformat

// This file reads the entries of a git index file, read only, for their
// stat data: what git recorded of each file when it last found the
// file's content to be the entry's blob.
//
// git writes every index this program uses; nothing here writes one. A
// reader of its own lets a capture compare a small tree's files with the
// stat data git keeps without starting git (the stat check), and see
// whether the real index's entries changed (StagedList); the format is
// one git documents and keeps: versions 2 to 4 (gitformat-index(5)). Anything this reader does not know (another
// version, a split index, a sparse directory entry) is an error, and the
// caller then asks git.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// Stat is the stat data of an entry, as git stores it: each field cut to
// its low 32 bits.
type Stat struct {
	CtimeSec, CtimeNsec uint32
	MtimeSec, MtimeNsec uint32
	Dev, Ino            uint32
	Mode                uint32
	UID, GID            uint32
	Size                uint32
}

// IndexEntry is one entry of an index. Path aliases the index's bytes.
type IndexEntry struct {
	Stat
	// Offset is where the entry begins in the index: StatAt reads its
	// stat data again from there.
	Offset int
	Path   []byte
	// ID is the entry's object id, raw; it aliases the index's bytes.
	ID []byte
	// Stage is the merge stage: 0 for a path without a conflict.
	Stage int
	// AssumeValid, SkipWorktree and IntentToAdd are the entry's flags:
	// each tells git not to compare the file as it compares others.
	AssumeValid, SkipWorktree, IntentToAdd bool
}

// Flag bits of an entry (gitformat-index(5)).
const (
	flagAssumeValid = 0x8000
	flagExtended    = 0x4000
	flagStageMask   = 0x3000
	flagStageShift  = 12
	flagNameMask    = 0x0fff
	extSkipWorktree = 0x4000
	extIntentToAdd  = 0x2000
	statSize        = 40
	headerSize      = 12
	maxVersion      = 4
	minVersion      = 2
)

// errFormat is returned for an index this reader does not read.
var errFormat = errors.New("index format not read here")

// ParseIndex calls fn for each entry of the index data b, in the index's
// order (by path), and stops at fn's first false. hashSize is the
// repository's object id length in bytes (20 for SHA-1, 32 for SHA-256).
// The entries' paths alias b.
func ParseIndex(b []byte, hashSize int, fn func(*IndexEntry) bool) error {
	if len(b) < headerSize || string(b[:4]) != "DIRC" {
		return fmt.Errorf("%w: no index signature", errFormat)
	}
	version := binary.BigEndian.Uint32(b[4:8])
	if version < minVersion || version > maxVersion {
		return fmt.Errorf("%w: version %d", errFormat, version)
	}
	n := binary.BigEndian.Uint32(b[8:12])
	off := headerSize
	var prev []byte // version 4 compresses each path against the one before
	var e IndexEntry
	for i := uint32(0); i < n; i++ {
		fixed := off + statSize + hashSize + 2
		if fixed > len(b) {
			return fmt.Errorf("%w: entry %d is cut short", errFormat, i)
		}
		e.Stat, e.Offset = StatAt(b, off), off
		e.ID = b[off+statSize : off+statSize+hashSize]
		flags := binary.BigEndian.Uint16(b[fixed-2:])
		p := fixed
		var ext uint16
		if flags&flagExtended != 0 {
			if version < 3 || p+2 > len(b) {
				return fmt.Errorf("%w: extended flags in entry %d", errFormat, i)
			}
			ext = binary.BigEndian.Uint16(b[p:])
			p += 2
		}
		e.Stage = int(flags&flagStageMask) >> flagStageShift
		e.AssumeValid = flags&flagAssumeValid != 0
		e.SkipWorktree = ext&extSkipWorktree != 0
		e.IntentToAdd = ext&extIntentToAdd != 0
		if e.Mode&typeMask == typeTree {
			return fmt.Errorf("%w: a sparse directory entry", errFormat)
		}
		if version == 4 {
			strip, used := varint(b[p:])
			if used == 0 || strip > len(prev) {
				return fmt.Errorf("%w: path of entry %d", errFormat, i)
			}
			p += used
			end := bytes.IndexByte(b[p:], 0)
			if end < 0 {
				return fmt.Errorf("%w: path of entry %d", errFormat, i)
			}
			// Each path is built in a buffer of its own: the caller may
			// keep the one before.
			path := make([]byte, 0, len(prev)-strip+end)
			path = append(append(path, prev[:len(prev)-strip]...), b[p:p+end]...)
			e.Path, prev = path, path
			off = p + end + 1
		} else {
			end := bytes.IndexByte(b[p:], 0)
			if end < 0 {
				return fmt.Errorf("%w: path of entry %d", errFormat, i)
			}
			if nl := int(flags & flagNameMask); nl != flagNameMask && nl != end {
				return fmt.Errorf("%w: path length of entry %d", errFormat, i)
			}
			e.Path = b[p : p+end]
			// Entries are padded with 1 to 8 NULs to a multiple of 8 bytes.
			off += (p + end - off + 8) &^ 7
		}
		if !fn(&e) {
			return nil
		}
	}
	for off+8 <= len(b)-hashSize {
		// A split index keeps most entries in another file: its entries
		// here are not the whole index.
		if string(b[off:off+4]) == "link" {
			return fmt.Errorf("%w: a split index", errFormat)
		}
		size := int(binary.BigEndian.Uint32(b[off+4:]))
		off += 8 + size
	}
	return nil
}

// StatAt is the stat data of the entry at offset off of the index b (an
// IndexEntry's Offset).
func StatAt(b []byte, off int) Stat {
	u := func(k int) uint32 { return binary.BigEndian.Uint32(b[off+4*k:]) }
	return Stat{CtimeSec: u(0), CtimeNsec: u(1), MtimeSec: u(2), MtimeNsec: u(3),
		Dev: u(4), Ino: u(5), Mode: u(6), UID: u(7), GID: u(8), Size: u(9)}
}

// IndexLen is the number of entries the index b says it holds, 0 for no index.
func IndexLen(b []byte) int {
	if len(b) < headerSize || string(b[:4]) != "DIRC" {
		return 0
	}
	return int(binary.BigEndian.Uint32(b[8:12]))
}

// varint decodes git's offset encoding of version 4 paths: each byte
// after the first adds one before its seven bits, so that no value has
// two encodings. used is 0 when b ends first or the value would not fit
// in 48 bits (no path is that long): ten bytes of it overflowed an int
// into a negative length (FuzzParseIndex found it).
func varint(b []byte) (v, used int) {
	for i, c := range b {
		if i > 0 {
			v++
		}
		if v >= 1<<41 {
			return 0, 0
		}
		v = v<<7 | int(c&0x7f)
		if c&0x80 == 0 {
			return v, i + 1
		}
	}
	return 0, 0
}

package gitformat

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
)

// Store writes the pack and its index into dir, the object directory's
// pack/, named as git names them: pack-<the pack's hash>. Each is first
// written under a temporary name git knows (tmp_pack_*, tmp_idx_*: gc
// removes those a killed run leaves), read-only as git makes them. The
// pack is renamed into place before its index, since git finds a pack by
// its index. A pack directory that is missing is made, as git makes it.
// Spared a git process, a rewind's safety checkpoint is durable sooner
// (docs/speed.md, "The pack's index written here"). A pack of MaxStored
// bytes or more is refused: its index would need the table of large
// offsets, which this writer does not write.
func (p *Pack) Store(dir string) error {
	if len(p.data) >= MaxStored {
		return fmt.Errorf("a pack of %d bytes is too large to store here (at most %d): give it to git index-pack", len(p.data), MaxStored-1)
	}
	packSum := p.data[len(p.data)-p.newHash().Size():]
	base := filepath.Join(dir, "pack-"+hex.EncodeToString(packSum))
	tmpPack, err := writeTemp(dir, "tmp_pack_", p.data)
	if errors.Is(err, fs.ErrNotExist) {
		if err = os.MkdirAll(dir, 0o777); err == nil {
			tmpPack, err = writeTemp(dir, "tmp_pack_", p.data)
		}
	}
	if err != nil {
		return err
	}
	tmpIdx, err := writeTemp(dir, "tmp_idx_", p.index(packSum))
	if err != nil {
		os.Remove(tmpPack)
		return err
	}
	if err := os.Rename(tmpPack, base+".pack"); err != nil {
		os.Remove(tmpPack)
		os.Remove(tmpIdx)
		return err
	}
	// Without its index, git ignores the pack, which may also be one that
	// was there before with the same objects: it stays.
	if err := os.Rename(tmpIdx, base+".idx"); err != nil {
		os.Remove(tmpIdx)
		return err
	}
	return nil
}

// index is the pack's index, version 2 (gitformat-pack(5)): a magic
// number and the version; how many names begin with each byte or a
// smaller one; the names in order; each object's CRC-32 and its offset
// in the pack, in the names' order; then the pack's hash and the hash of
// everything before it. The pack is smaller than 2 GiB (see MaxStored), so
// no offset needs the table of 8-byte ones.
func (p *Pack) index(packSum []byte) []byte {
	order := make([]int, len(p.ids))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return bytes.Compare(p.ids[a], p.ids[b]) })
	var b bytes.Buffer
	b.Write([]byte{0xff, 't', 'O', 'c', 0, 0, 0, 2})
	var fanout [256]uint32
	for _, id := range p.ids {
		fanout[id[0]]++
	}
	for c := 1; c < 256; c++ {
		fanout[c] += fanout[c-1]
	}
	binary.Write(&b, binary.BigEndian, fanout)
	for _, i := range order {
		b.Write(p.ids[i])
	}
	for _, i := range order {
		binary.Write(&b, binary.BigEndian, p.crcs[i])
	}
	for _, i := range order {
		binary.Write(&b, binary.BigEndian, uint32(p.offsets[i]))
	}
	b.Write(packSum)
	h := p.newHash()
	h.Write(b.Bytes())
	b.Write(h.Sum(nil))
	return b.Bytes()
}

// writeTemp writes data to a new read-only file in dir whose name starts
// with prefix, synced, and returns its path. Synced before the caller
// renames it into place: a filesystem may make the rename durable before
// the data (ext4's delayed allocation does), and after a power loss git
// would find a pack or an index under its name, empty or short, which
// fsck reports as corrupt; one syncfs after the rename does not order
// the two (the power-loss test, TestPowerLoss, found it). Not os.CreateTemp: its files are
// made 0600, and a chmod after would give 0444 whatever the umask, where
// git's are 0444 under it.
func writeTemp(dir, prefix string, data []byte) (string, error) {
	for try := 0; ; try++ {
		name := filepath.Join(dir, prefix+strconv.FormatUint(rand.Uint64(), 36))
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o444)
		if errors.Is(err, fs.ErrExist) && try < 10 {
			continue
		}
		if err != nil {
			return "", err
		}
		_, err = f.Write(data)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(name)
			return "", err
		}
		return name, nil
	}
}

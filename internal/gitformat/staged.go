package gitformat

import (
	"encoding/hex"
	"strconv"
)

// StagedList is what `git ls-files -z --stage -v` prints of the index b,
// run at the top of the tree: for each entry, in order, "<tag> <mode>
// <id> <stage>\t<path>\0", the tag H, S for skip-worktree or M for a
// conflict's stage, in lower case where the entry is assume-unchanged.
//
// A capture compares these lines with those of its last seeding to see
// whether the real index's entries changed, which git rewrites for its
// stat data alone on every refresh; reading them here spares the
// process and its 9 MB pipe at 100,000 files. The bytes are git's own,
// byte for byte (TestStagedListIsGits), so a caller that falls back to
// git for an index this reader refuses reaches the same digest.
func StagedList(b []byte, hashSize int) ([]byte, error) {
	// Each line is the entry's path and about 2 bytes a byte of its id;
	// the count is the index's own word, so a damaged one is not trusted
	// past what the bytes could hold.
	out := make([]byte, 0, min(IndexLen(b)*(2*hashSize+48), 2*len(b)))
	err := ParseIndex(b, hashSize, func(e *IndexEntry) bool {
		tag := byte('H')
		switch {
		case e.Stage != 0:
			tag = 'M'
		case e.SkipWorktree:
			tag = 'S'
		}
		if e.AssumeValid {
			tag += 'a' - 'A'
		}
		out = append(out, tag, ' ')
		out = appendMode(out, e.Mode)
		out = append(out, ' ')
		out = hex.AppendEncode(out, e.ID)
		out = append(out, ' ', byte('0'+e.Stage), '\t')
		out = append(out, e.Path...)
		out = append(out, 0)
		return true
	})
	return out, err
}

// appendMode appends mode as git's "%06o" prints it.
func appendMode(out []byte, mode uint32) []byte {
	var buf [11]byte
	m := strconv.AppendUint(buf[:0], uint64(mode), 8)
	for i := len(m); i < 6; i++ {
		out = append(out, '0')
	}
	return append(out, m...)
}

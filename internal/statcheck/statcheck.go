// Package statcheck is the stat check: without a file system monitor, a
// capture of a small tree that finds nothing changed spends most of its
// time starting git and letting it do what the capture can do in its own
// process, compare every file with the stat data git keeps for it
// (docs/speed.md, "The stat check").
//
// It answers one question, whether the working tree is still the one the
// last whole scan left, and it answers yes only when git's own scan would
// find nothing, checking more than git does:
//
//   - the private index is the file that scan left (its fingerprint), so
//     its entries are the tree recorded beside it;
//   - every entry's file has the stat data git recorded when it last found
//     the file to be the entry's blob: times to the nanosecond, change
//     time included, inode, owner, size and type; an entry written in the
//     same instant as the index (git's racily clean entry) is not vouched
//     for; a path a capture took without writing it into the index
//     (Pending) has the stat data that capture trusted, or is still
//     absent;
//   - every name in every directory git's walk reads is an entry's, or
//     one that scan listed as ignored, and no directory but the top holds
//     a .git; directories that scan listed as ignored are not read, as git
//     does not read them;
//   - nothing else that decides what is taken changed: the rules a monitor
//     cannot see either, the real index and the exclude file, a dropped
//     path that came back (the capture checks those, and records them).
//
// Anything it does not know (an index it does not read, an entry flagged
// to be skipped or not compared, a submodule, a name it cannot place, an
// error) is a no, and the capture scans as before. A no costs the check's
// time, up to its first difference, before git starts; the check is only
// made where it is a fraction of git's scan.
//
// It reads git's index file itself (gitformat.ParseIndex) and the tree with
// Linux's getdents; elsewhere it vouches for nothing. Its differential
// test against git's own scan is the capture's (TestStatCheckMatchesScan,
// FuzzStatCheck), since only a capture makes the records it checks.
package statcheck

import (
	"fmt"
	"os"
	"syscall"

	"github.com/git-checkpoint/git-checkpoint/internal/gitformat"
)

// Record is what the last whole scan without a monitor left for the stat
// check: the capture keeps it in its state.
type Record struct {
	// Tree is the snapshot that scan made.
	Tree string `json:"tree"`
	// Index fingerprints the private index as that capture left it.
	Index string `json:"index"`
	// Rules fingerprints the inputs the tree does not hold.
	Rules string `json:"rules"`
	// Ignored is what that scan listed as ignored (`--ignored=matching`):
	// paths of files, and of directories with a trailing slash.
	Ignored []string `json:"ignored,omitempty"`
}

// Pending is a path a capture took without writing it into the index: a
// file with the stat data that capture trusted (Stat, "" when taken too
// close to a write to trust any), or a path it found absent.
type Pending struct {
	Absent bool
	Stat   string
}

// Differs says how a file is not as its pending record has it, or "":
// present says whether it is on disk, key is its KeyOf when it is. Stat
// data taken too close to a write tell no change, so such a record never
// vouches for the file.
func (p Pending) Differs(present bool, key string) string {
	switch {
	case !present && p.Absent:
		return ""
	case !present || p.Absent:
		return "changed"
	case p.Stat == "":
		return "was taken too soon after a write to tell a change by its stat data"
	case p.Stat != key:
		return "changed"
	}
	return ""
}

// KeyOf is the stat data that change when a file is written, as one
// string: size, modification and change times, inode, device and mode.
func KeyOf(size int64, mtim, ctim syscall.Timespec, ino uint64, dev int64, mode uint32) string {
	return fmt.Sprintf("%d:%d.%d:%d.%d:%d:%d:%o", size, mtim.Sec, mtim.Nsec, ctim.Sec, ctim.Nsec, ino, dev, mode)
}

// Fingerprint is a file's identity as its stat data give it: the same
// file, not replaced or written since, has the same.
func Fingerprint(fi os.FileInfo) string {
	ino := uint64(0)
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		ino = st.Ino
	}
	return fmt.Sprintf("%d-%d-%d", fi.Size(), fi.ModTime().UnixNano(), ino)
}

// Compare checks the working tree at top against the index file at index
// and the record r: the first difference it found, or "" when it vouches
// for the tree. pending are the paths a capture took without writing
// them into the index, which stand in for the index's entries.
func Compare(top, index string, r *Record, pending map[string]Pending) string {
	if r == nil || len(r.Tree) != 40 && len(r.Tree) != 64 {
		return "no record"
	}
	f, err := os.Open(index)
	if err != nil {
		return "no private index"
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || Fingerprint(fi) != r.Index {
		return "the private index is not the record's"
	}
	// Mapped, not read: a read into fresh memory faults every page, where
	// a mapping of the cached file faults a few at a time. git replaces
	// an index by a rename and never cuts one short in place, so the
	// mapping cannot lose its pages under us.
	data, err := syscall.Mmap(int(f.Fd()), 0, int(fi.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return "the private index cannot be mapped"
	}
	defer syscall.Munmap(data)
	mtim, _ := Times(fi.Sys().(*syscall.Stat_t))
	w := newTreeWalk(top, r.Ignored, data)
	why := ""
	err = gitformat.ParseIndex(data, len(r.Tree)/2, func(e *gitformat.IndexEntry) bool {
		if !comparable(e, mtim) {
			why = string(e.Path) + " is not compared by its stat data"
			return false
		}
		w.add(e)
		return true
	})
	switch {
	case err != nil:
		return err.Error()
	case why != "":
		return why
	}
	w.addPending(pending)
	return w.run()
}

// comparable reports whether an entry is one whose file the stat check
// may vouch for: a file or a symbolic link at stage 0, compared as any
// other, not written in the index's own instant.
func comparable(e *gitformat.IndexEntry, index syscall.Timespec) bool {
	switch e.Mode {
	case 0o100644, 0o100755, 0o120000:
	default:
		return false // a submodule, or a mode this check does not know
	}
	if e.Stage != 0 || e.AssumeValid || e.SkipWorktree || e.IntentToAdd {
		return false
	}
	sec, nsec := uint32(index.Sec), uint32(index.Nsec)
	return e.MtimeSec < sec || e.MtimeSec == sec && e.MtimeNsec < nsec
}

package capture

import (
	"os"
	"syscall"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/gitindex"
)

// The stat check: without a file system monitor, a capture of a small tree
// that finds nothing changed spends most of its time starting git and
// letting it do what the capture can do in its own process, compare every
// file with the stat data git keeps for it (docs/speed.md, "The stat
// check").
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
//     (pending.go) has the stat data that capture trusted, or is still
//     absent;
//   - every name in every directory git's walk reads is an entry's, or
//     one that scan listed as ignored, and no directory but the top holds
//     a .git; directories that scan listed as ignored are not read, as git
//     does not read them;
//   - nothing else that decides what is taken changed: the rules a monitor
//     cannot see either (monitorRules), the real index and the exclude
//     file (needsSeed), a dropped path that came back (returned).
//
// Anything it does not know (an index it does not read, an entry flagged
// to be skipped or not compared, a submodule, a name it cannot place, an
// error) is a no, and the capture scans as before. A no costs the check's
// time, up to its first difference, before git starts; the check is only
// made where it is a fraction of git's scan (statCheckIndexSize).

// statRecord is what the last whole scan without a monitor left for the
// stat check (indexState.Stat).
type statRecord struct {
	// Tree is the snapshot that scan made.
	Tree string `json:"tree"`
	// Index fingerprints the private index as that capture left it.
	Index string `json:"index"`
	// Rules fingerprints the inputs the tree does not hold (monitorRules).
	Rules string `json:"rules"`
	// Ignored is what that scan listed as ignored (`--ignored=matching`):
	// paths of files, and of directories with a trailing slash.
	Ignored []string `json:"ignored,omitempty"`
}

// statCheckIndexSize bounds the private index (about 20,000 files) of a
// tree the stat check is made for: its time grows with the tree, and a
// check that finds a change is time added to the scan that follows.
const statCheckIndexSize = 2 << 20

// maxIgnoredListed bounds the ignored paths a record keeps: each capture
// reads them back with the state.
const maxIgnoredListed = 10000

// recordStat returns the record of the whole scan this capture made for
// the next capture's stat check, or nil where that check could not vouch
// for the tree: a scan with a monitor or in two processes (ignored paths
// not listed), a rewind's (which writes its state aside), a tree with
// submodules, anything skipped, or a private index too large.
func (c *Capturer) recordStat(st *indexState, snap *Snapshot) *statRecord {
	if !c.listed || c.Git.Fsmonitor != nil || c.WriteAside || len(st.Gitlinks) > 0 || len(snap.Skipped) > 0 || len(c.ignored) > maxIgnoredListed {
		return nil
	}
	fi, err := os.Stat(c.PrivateIndex())
	if err != nil || fi.Size() >= statCheckIndexSize {
		return nil
	}
	return &statRecord{Tree: snap.Tree, Index: fingerprintOf(fi), Rules: c.monitorRules(), Ignored: c.ignored}
}

// statSame reports whether the stat check vouches for the tree the record
// st.Stat names: the answer the early check got for that same record, or
// the check now. An early answer is taken once: it says what the tree was
// before the command began, and a rewind captures again after writing.
func (c *Capturer) statSame(st *indexState) bool {
	// StartEarly returned once the check was over (the scan after it
	// started, or nothing was left to do), so e.stat is read here after
	// it was written.
	if e := c.Early; e != nil && e.stat != nil {
		answer := *e.stat
		e.stat = nil
		if answer.index == st.Stat.Index {
			return answer.same
		}
	}
	return c.treeMatches(st)
}

// treeMatches is the stat check of the tree against the private index and
// the record st.Stat (see above), traced with its answer, the first
// difference it found, and its time.
func (c *Capturer) treeMatches(st *indexState) bool {
	start := time.Now()
	why := c.firstDifference(st)
	answer := "the tree is the last scan's"
	if why != "" {
		answer = "a scan is needed: " + why
	}
	c.Git.Tracef("stat check: %s, %.1f ms", answer, float64(time.Since(start).Microseconds())/1000)
	return why == ""
}

// firstDifference is treeMatches untraced: the first difference it
// found, or "" when it vouches for the tree.
func (c *Capturer) firstDifference(st *indexState) string {
	r := st.Stat
	if r == nil || len(r.Tree) != 40 && len(r.Tree) != 64 {
		return "no record"
	}
	links := map[string]bool{}
	for _, p := range st.Dropped {
		if c.isBack(p, links) {
			return p + " is back"
		}
	}
	f, err := os.Open(c.PrivateIndex())
	if err != nil {
		return "no private index"
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fingerprintOf(fi) != r.Index {
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
	mtim, _ := statTimes(fi.Sys().(*syscall.Stat_t))
	w := newTreeWalk(c.Repo.Top, r.Ignored, data)
	why := ""
	err = gitindex.Parse(data, len(r.Tree)/2, func(e *gitindex.Entry) bool {
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
	w.addPending(st.Pending)
	return w.run()
}

// comparable reports whether an entry is one whose file the stat check
// may vouch for: a file or a symbolic link at stage 0, compared as any
// other, not written in the index's own instant.
func comparable(e *gitindex.Entry, index syscall.Timespec) bool {
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

package capture

import (
	"os"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/statcheck"
)

// The stat check (package statcheck) spares a capture of a small tree
// that finds nothing changed the git process that would find so. The
// capture records what its whole scans saw (recordStat), checks what the
// stat check cannot see (the rules, a dropped path come back), and asks
// the check itself (firstDifference).

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
func (c *Capturer) recordStat(st *indexState, snap *Snapshot) *statcheck.Record {
	if !c.listed || c.Git.Fsmonitor != nil || c.WriteAside || len(st.Gitlinks) > 0 || len(snap.Skipped) > 0 || len(c.ignored) > maxIgnoredListed {
		return nil
	}
	fi, err := os.Stat(c.PrivateIndex())
	if err != nil || fi.Size() >= statCheckIndexSize {
		return nil
	}
	return &statcheck.Record{Tree: snap.Tree, Index: fingerprintOf(fi), Rules: c.monitorRules(), Ignored: c.ignored}
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
	c.Git.Tracef("stat check: %s, %.1f ms", answer, msSince(start))
	return why == ""
}

// firstDifference is treeMatches untraced: the first difference it
// found, or "" when it vouches for the tree.
func (c *Capturer) firstDifference(st *indexState) string {
	if st.Stat == nil {
		return "no record"
	}
	links := map[string]bool{}
	for _, p := range st.Dropped {
		if c.isBack(p, links) {
			return p + " is back"
		}
	}
	pending := make(map[string]statcheck.Pending, len(st.Pending))
	for p, e := range st.Pending {
		pending[p] = e.expected()
	}
	return statcheck.Compare(c.Repo.Top, c.PrivateIndex(), st.Stat, pending)
}

package capture

import (
	"context"
	"io/fs"
	"os"
	"syscall"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/gitformat"
	"github.com/git-checkpoint/git-checkpoint/internal/statcheck"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// pendingEntry is a path a full scan took into its tree without writing it
// into the private index (see deferUpdates): the entry it got, and the
// file's stat data when they can be trusted to tell a later change.
type pendingEntry struct {
	Mode string `json:"mode,omitempty"` // "" when the path was absent
	OID  string `json:"oid,omitempty"`
	Stat string `json:"stat,omitempty"` // see statKey; "" when racy
}

func (p pendingEntry) entry() (gitformat.Entry, bool) {
	return gitformat.Entry{Mode: p.Mode, OID: p.OID}, p.Mode != ""
}

// mayDefer reports whether a scan's selection can be taken without
// updating the private index: a few paths, none of which needs what only
// update-index does (--force-remove of a path beyond a symlink or of a
// file grown past the size limit, a new gitlink). A scan that touched an
// attributes file, which changes how other paths are captured, updates
// the private index too (the caller checks). A changed .gitignore that
// makes no file captured before ignored (ignoredNow: those are removals)
// may stay pending, as the rules last applied (ignoreRulesChanged). Nor may a path that came back after a capture
// dropped it (back, see returned): a tracked file that matches an ignore
// rule, which the private index no longer holds, so the next scan would
// not report it again, and its pending record would be taken as gone back
// to the private index's version: dropped from every later checkpoint.
func mayDefer(st *indexState, sel *selection, back []entry) bool {
	if st.Tree == "" || len(sel.updates) == 0 || len(sel.updates) > MaxOnly || len(sel.removals) > 0 || len(back) > 0 {
		return false
	}
	for _, commit := range sel.gitlinks {
		if commit != "" {
			return false
		}
	}
	return true
}

// deferUpdates brings the few changed paths a scan found into the snapshot
// without updating the private index: their new entries are written into
// copies of the private index's trees, as a partial capture does. Updating
// the private index instead rewrites it whole twice (update-index, then
// write-tree for its cache-tree), each costing more at 100,000 files than
// the rest of a capture of one changed file (docs/speed.md, "A few changed
// paths leave the private index as it is").
//
// The private index keeps the old entries, so the next scan reports these
// paths again: each is then taken from the pending record when its stat
// data are unchanged (and were taken safely after its last write), and
// hashed again otherwise. The tree is still derived from the private
// index's tree and exactly the paths the scan reports, so it is the tree
// update-index and write-tree would give. It returns false, having changed
// nothing, when a path needs what a partial capture cannot do; the caller
// then updates the private index as before, which empties the records.
//
// may is mayConvert(st), which the caller knows already.
func (c *Capturer) deferUpdates(ctx context.Context, j *store.Journal, st *indexState, updates []string, snap *Snapshot, may bool) (bool, error) {
	var items []*named
	for _, p := range updates {
		it, ok := c.probe(p)
		if !ok {
			return false, nil
		}
		items = append(items, it)
	}
	if len(items) == len(st.Pending) && st.Result != "" {
		same := true
		for _, it := range items {
			if old, ok := st.Pending[it.path]; !ok || !unchanged(old, it) {
				same = false
				break
			}
		}
		if same {
			// Every path the scan reports is as the last capture took it.
			snap.Tree, snap.Known, snap.Changes = st.Result, true, store.Changes{}
			return true, nil
		}
	}
	for _, it := range items {
		if old, ok := st.Pending[it.path]; ok && it.present && unchanged(old, it) {
			it.entry, it.known = old.entry()
		}
	}
	hashed := c.Store.Now()
	// In a plain tree the files are read while git reads the trees on
	// their way (newSplice): neither needs the other, and together they
	// were most of a rewind's scan after git's (docs/speed.md, "The
	// rewind's commits made ahead").
	plain := !may
	read := c.readAside(items, plain)
	sp, ok, err := c.newSplice(ctx, st.Tree, items)
	pre := read()
	if err != nil || !ok {
		return false, err
	}
	pre.apply(items, len(st.Tree), plain)
	index, blobs, err := c.hashNamed(ctx, items, may, len(st.Tree))
	if index != "" {
		defer os.Remove(index)
	}
	if err != nil {
		return false, err
	}
	blobs = unique(append(blobs, pre.blobs(items)...))
	prev := st.Result
	if prev == "" {
		prev = st.Tree
	}
	if !may && len(st.Raw) == 0 {
		// No raw overlay now or after (raw.go): the checkpoint's commit
		// can be made with the tree.
		sp.seal = func(root string) []git.Object { return c.seal(j, root) }
	}
	if snap.Tree, err = sp.write(ctx, []string{st.Tree, prev}, blobs); err != nil {
		return false, err
	}
	// Count against the last capture: a pending path's entry, else the
	// private index's.
	pending := map[string]pendingEntry{}
	var hashedPaths []string
	snap.Changes = store.Changes{}
	for _, it := range items {
		before, had := it.base, it.inBase
		if old, ok := st.Pending[it.path]; ok {
			before, had = old.entry()
			delete(st.Pending, it.path)
		}
		it.count(&snap.Changes, before, had)
		rec := pendingEntry{}
		if it.present {
			rec = pendingEntry{Mode: it.entry.Mode, OID: it.entry.OID, Stat: trustedStat(it.fi, hashed)}
		}
		pending[it.path] = rec
		if !it.known {
			hashedPaths = append(hashedPaths, it.path)
		}
	}
	// A path still pending from before that the scan no longer reports
	// went back to the private index's version: the counts above miss it.
	snap.Known = len(st.Pending) == 0
	if may {
		// The raw overlay (raw.go) follows: the paths hashed now are
		// examined against their new entries, those gone back to the
		// private index's version against it. Paths taken from their
		// records are as they were examined then.
		c.updateRaw(ctx, st, itemEntries(items), hashedPaths, false, len(st.Tree))
		var back []string
		for p := range st.Pending {
			back = append(back, p)
		}
		if len(back) > 0 {
			entries, err := indexEntries(ctx, c.Git, c.PrivateIndex())
			if err != nil {
				return false, err
			}
			c.updateRaw(ctx, st, entries, back, false, len(st.Tree))
		}
	}
	st.Pending, st.Result = pending, snap.Tree
	return true, nil
}

// readAside starts reading the files of the items that a plain tree's
// capture hashes itself (prehashOwn), and returns the function that waits
// for them: none where git hashes them (plain false) or whose entry is
// known (the last capture's pending record says what they hold).
func (c *Capturer) readAside(items []*named, plain bool) (wait func() *Prehash) {
	var todo []*named
	for _, it := range items {
		if plain && !it.known && it.present && it.size <= c.Cfg.MaxFileBytes {
			todo = append(todo, it)
		}
	}
	if len(todo) == 0 {
		return func() *Prehash { return nil }
	}
	done := make(chan *Prehash, 1)
	go func() { done <- c.prehashOwn(todo) }()
	return func() *Prehash { return <-done }
}

// unchanged reports whether the path is as the pending record took it.
func unchanged(old pendingEntry, it *named) bool {
	key := ""
	if it.present {
		key = statKey(it.fi)
	}
	return old.differs(it.present, key) == ""
}

// expected is the record as the stat check compares a file with it.
func (p pendingEntry) expected() statcheck.Pending {
	return statcheck.Pending{Absent: p.Mode == "", Stat: p.Stat}
}

// differs says how a file is not as its pending record has it, or ""
// (statcheck.Pending.Differs).
func (p pendingEntry) differs(present bool, key string) string {
	return p.expected().Differs(present, key)
}

// statKey is the stat data that change when a file is written: size,
// modification and change times, inode, device and mode.
func statKey(fi fs.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	mtim, ctim := statcheck.Times(st)
	return statcheck.KeyOf(int64(st.Size), mtim, ctim, uint64(st.Ino), int64(st.Dev), uint32(st.Mode))
}

// trustedStat returns fi's statKey when a write after the file was hashed
// (at hashed) would show in it: git's racy-clean problem. A file's times
// have the filesystem's granularity, so a file written again within that
// tick after being read could keep the same stat data; such a file is
// recorded without stat data and hashed again next time. Times with no
// sub-second part suggest a filesystem with one- or two-second times.
func trustedStat(fi fs.FileInfo, hashed time.Time) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	mtim, ctim := statcheck.Times(st)
	latest := time.Unix(mtim.Sec, mtim.Nsec)
	if ct := time.Unix(ctim.Sec, ctim.Nsec); ct.After(latest) {
		latest = ct
	}
	margin := 100 * time.Millisecond
	if mtim.Nsec == 0 && ctim.Nsec == 0 {
		margin = 3 * time.Second
	}
	if hashed.Sub(latest) <= margin {
		return ""
	}
	return statKey(fi)
}

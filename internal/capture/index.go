package capture

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/durable"
	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/gitformat"
	"github.com/git-checkpoint/git-checkpoint/internal/statcheck"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// indexState is what the capture remembers about its private index between
// runs (index.state beside it). The private index persists so that git's
// stat cache spares unchanged files from being hashed again; it is seeded
// from the real index and re-seeded whenever the real index or an exclude
// file changes, so that what the user untracked and ignored stops being
// captured. Every path in it is a store.Paths or a store.ByPath key, so
// a name that is not UTF-8 keeps its bytes (a JSON string would make it
// U+FFFD); a state that does not decode is an empty one, which a re-seed
// and a scan of every file rebuild.
type indexState struct {
	Real      string               `json:"real"`      // fingerprint of the real index at seeding
	Exclude   string               `json:"exclude"`   // fingerprint of .git/info/exclude
	Tree      string               `json:"tree"`      // tree of the private index after the last capture
	SkipWork  store.Paths          `json:"skip"`      // skip-worktree paths in the real index
	Gitlinks  store.ByPath[string] `json:"gitlinks"`  // gitlink path to commit, at seeding
	Untracked int                  `json:"untracked"` // paths in the private index not in the real one (informational)
	Entries   string               `json:"entries"`   // digest of the real index's entries (ls-files -s -v) at seeding
	// Attrs says the tree has an attributes file that may convert
	// (attributesConvert), so git may convert files (see raw.go); Raw and
	// RawTree are the raw overlay.
	Attrs   bool                   `json:"attrs,omitempty"`
	Raw     store.ByPath[rawEntry] `json:"raw,omitempty"`
	RawTree string                 `json:"raw_tree,omitempty"`
	// Rules fingerprints the rules of conversion from outside the tree
	// at the last whole capture (rulesSeen): when they change, the next
	// one stores the tree's files again (renormalize.go).
	Rules string `json:"rules,omitempty"`
	// Dropped are paths captures removed from the private index (a
	// file deleted, or replaced by a directory). One the real index
	// tracks and that matches an ignore rule would not be seen again when
	// it comes back: the walk of untracked files ignores it, and git
	// ignores no tracked file (see returned).
	Dropped store.Paths `json:"dropped,omitempty"`
	// Unsupported are paths a scan found of a type git cannot store (a
	// FIFO where a file was): git's walk does not list them once the
	// private index lost them, so each capture looks at them again
	// (listUnsupported).
	Unsupported store.Paths `json:"unsupported,omitempty"`
	// TooBig are the files over checkpoint.maxFileBytes the last whole
	// scan found to be new content, with their stat data (tooBig).
	TooBig store.ByPath[string] `json:"too_big,omitempty"`
	// Result and Pending describe a snapshot taken without updating the
	// private index (pending.go): its tree, and the paths it changed
	// against Tree.
	Result  string                     `json:"result,omitempty"`
	Pending store.ByPath[pendingEntry] `json:"pending,omitempty"`
	// Monitor is what the last scan through a file system monitor saw,
	// which can spare the next capture its scan (monitor.go).
	Monitor *monitorState `json:"monitor,omitempty"`
	// Stat is what the last whole scan without a monitor left for the
	// next capture's stat check (statcheck.go).
	Stat *statcheck.Record `json:"stat,omitempty"`

	// read is the file this state was decoded from, while the file still
	// holds it: a capture that changed nothing saves the same bytes, and
	// saveState then spares it a write and a rename (docs/speed.md, "The
	// pack's index written here; a clean capture's state left as it is").
	read []byte
}

// drop notes a path a capture removes from the private index (Dropped),
// keeping the newest maxDropped.
func (st *indexState) drop(path string) {
	if slices.Contains(st.Dropped, path) {
		return
	}
	st.Dropped = append(st.Dropped, path)
	if over := len(st.Dropped) - maxDropped; over > 0 {
		st.Dropped = slices.Delete(st.Dropped, 0, over)
	}
}

// fingerprint is a file's size, modification time and inode, or "none":
// a file replaced through a rename (every index git writes) gets another.
func fingerprint(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return "none"
	}
	return fingerprintOf(fi)
}

// fingerprintOf is fingerprint of a file already stat'ed.
func fingerprintOf(fi os.FileInfo) string { return statcheck.Fingerprint(fi) }

// PrivateIndex is the capture's own index (the store's).
func (c *Capturer) PrivateIndex() string { return c.Store.PrivateIndex() }

func (c *Capturer) loadState() *indexState {
	st := &indexState{}
	var b []byte
	var err error
	if c.state != nil && c.Git.Aside.Pending() {
		// Being written aside: what this process saved is the state.
		// Once written, the file is, and only the file: this process may
		// have let the lock go since (a rewind that asks a person), and
		// another taken a checkpoint.
		b = c.state
	} else {
		c.state = nil
		if b, err = c.readState(); err != nil {
			return st
		}
		st.read = b
	}
	return parseState(b, st)
}

// readState reads the state file.
func (c *Capturer) readState() ([]byte, error) {
	return os.ReadFile(c.Store.Path("index.state"))
}

// parseState decodes b into st; a state that does not decode is an
// empty one.
func parseState(b []byte, st *indexState) *indexState {
	if json.Unmarshal(b, st) != nil {
		return &indexState{}
	}
	return st
}

// forget saves the state as not knowing the private index's tree, before
// the private index is changed. st.Tree is what lets a scan that finds
// nothing new skip write-tree, and what pending paths are laid on: a run
// killed after changing the private index and before saving the new tree
// would otherwise leave the old tree beside a private index that no longer
// reports the changes it took in, and the next capture would claim the old
// tree. With no tree, the next capture writes it from the private index.
// st itself keeps its values, for the run that goes on.
//
// This one write is synced (data, then the directory after the rename)
// before git changes the private index: after a power loss the private
// index may be new only if this state is on disk. The other state writes
// need no sync: a state newer than the private index names a tree whose
// changes the next scan finds again.
func (c *Capturer) forget(st *indexState) error {
	if st.Tree == "" && st.Result == "" && len(st.Pending) == 0 {
		return nil
	}
	st.read = nil // the file is about to hold another state
	blank := *st
	blank.Tree, blank.Result, blank.Pending = "", "", nil
	b, err := json.Marshal(&blank)
	if err == nil {
		err = c.Git.Aside.Settle() // the write aside must not land after this one
	}
	if err == nil {
		c.state = nil
		err = durable.WriteFile(c.Store.Path("index.state"), b)
	}
	if err != nil {
		return fault.Wrap(err, fault.FailedIO, "cannot save the private index state")
	}
	return nil
}

// saveState writes the state, aside when the scan writes its pack aside:
// after the pack, since the state names the tree the pack holds. Until
// the file is written, loadState reads what was saved here.
func (c *Capturer) saveState(st *indexState) error {
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	if c.WriteAside && c.Git.Aside != nil {
		c.state = b
		c.Git.Aside.Go(func() error { return writeFileAtomic(c.Store.Path("index.state"), b) })
		return nil
	}
	if err := c.Git.Aside.Settle(); err != nil {
		return err
	}
	c.state = nil
	if bytes.Equal(b, st.read) {
		return nil // the file holds it already
	}
	st.read = nil
	return writeFileAtomic(c.Store.Path("index.state"), b)
}

// needsSeed reports whether the private index must be re-seeded.
func (c *Capturer) needsSeed(st *indexState) bool {
	if _, err := os.Stat(c.PrivateIndex()); err != nil && fingerprint(c.Repo.Index) != "none" {
		return true
	}
	return st.Real != fingerprint(c.Repo.Index) || st.Exclude != c.excludeFingerprint()
}

// excludeFingerprint fingerprints .git/info/exclude, an input of the
// private index the state keeps (indexState.Exclude).
func (c *Capturer) excludeFingerprint() string {
	return fingerprint(filepath.Join(c.Repo.CommonDir, "info", "exclude"))
}

// seed copies the real index to the private one, keeping its mtime so that
// git's racy-clean detection stays correct, then clears assume-unchanged
// bits (a snapshot must look at every file) and notes skip-worktree paths
// and gitlinks. The real index is only read, never locked or written.
//
// Most rewrites of the real index change only its stat data: `git status`,
// an editor's or a prompt's refresh. Re-seeding then would throw away what
// the private index learnt (every untracked file's entry and stat data) and
// hash them all again, so unless force is set, seed compares the entries
// (path, mode, id, stage and flags) with those of the last seeding and,
// when they are the same and the exclude file did not change, keeps the
// private index and reports seeded false. Its own stat data were refreshed
// by its own scans, so they need nothing from the real index's.
func (c *Capturer) seed(ctx context.Context, st *indexState, force bool) (seeded bool, err error) {
	priv := c.PrivateIndex()
	copied := c.Store.SeedIndex()
	defer os.Remove(copied)
	real, err := c.readRealOnce(ctx, copied)
	if errors.Is(err, fs.ErrNotExist) {
		// Unborn repository with nothing staged: start empty, and never
		// create a real index.
		*st = indexState{Real: "none", Exclude: c.excludeFingerprint(), Raw: st.Raw, RawTree: st.RawTree}
		os.Remove(priv)
		return true, nil
	} else if err != nil {
		return false, err
	}
	if !force && c.keep(st, real) {
		return false, nil
	}
	c.Git.Tracef("seed: the private index copied from the real one (its entries read in %.1f ms)", msSince(real.start))
	if !real.written {
		if err := writeKeepMtime(copied, real.data, real.fi.ModTime()); err != nil {
			return false, err
		}
	}
	if err := c.forget(st); err != nil {
		return false, err
	}
	if err := c.dropMonitorState(ctx, copied); err != nil {
		return false, err
	}
	if err := os.Rename(copied, priv); err != nil {
		return false, err
	}
	*st = indexState{
		Real:    fingerprintOf(real.fi), // of the bytes read, whatever replaced the file since
		Exclude: real.exclude,
		Entries: real.entries,
		Raw:     st.Raw, // checked against the files on every capture
		RawTree: st.RawTree,
	}
	var assumed []string
	for _, entry := range strings.Split(string(real.list), "\x00") {
		// "<tag> <mode> <oid> <stage>\t<path>"
		meta, path, ok := strings.Cut(entry, "\t")
		if !ok || len(meta) < 2 {
			continue
		}
		tag := meta[0]
		f := strings.Fields(meta[2:])
		if filepath.Base(path) == ".gitattributes" && !st.Attrs {
			st.Attrs = attributesConvert(filepath.Join(c.Repo.Top, filepath.FromSlash(path)))
		}
		switch {
		case tag >= 'a' && tag <= 'z':
			assumed = append(assumed, path)
		case tag == 'S':
			st.SkipWork = append(st.SkipWork, path)
		}
		if len(f) >= 2 && f[0] == "160000" {
			if st.Gitlinks == nil {
				st.Gitlinks = map[string]string{}
			}
			st.Gitlinks[path] = f[1]
		}
	}
	if len(assumed) > 0 {
		_, err = c.Git.Run(ctx, git.Cmd{Args: []string{"update-index", "-z", "--no-assume-unchanged", "--stdin"},
			Index: priv, Stdin: nulList(assumed)})
	}
	return true, err
}

// dropMonitorState takes the file system monitor's token and valid bits
// (FSMN) and the untracked cache (UNTR) out of a copy of the real index
// before it becomes the private one. git set them under the person's
// settings, which are not the scan's: with core.fileMode=false it never
// compares the executable bit, so the real index's token vouched for a
// script whose entry says 100644 though the file is executable, and the
// first monitored scan through the private index trusted it
// (TestFsmonitorSeedChecksEveryFile). Without them that scan checks every
// file and makes the private index's own. A copy that names neither
// (most, where the person runs no monitor) costs no git process; a path
// that happens to contain the letters costs one.
func (c *Capturer) dropMonitorState(ctx context.Context, index string) error {
	data, err := os.ReadFile(index)
	if err != nil {
		return err
	}
	if !bytes.Contains(data, []byte("FSMN")) && !bytes.Contains(data, []byte("UNTR")) {
		return nil
	}
	_, err = c.Git.Run(ctx, git.Cmd{Args: []string{"update-index", "--no-fsmonitor", "--no-untracked-cache"}, Index: index})
	return err
}

// sameEntries reports whether a re-seed that needsSeed asks for would
// keep the private index (keep), the real index's entries read here and
// never by git: this is asked before a capture that may start none.
func (c *Capturer) sameEntries(st *indexState) bool {
	real, err := c.readReal(context.Background(), "", false)
	c.real = real
	return err == nil && c.keep(st, real)
}

// readRealOnce is readReal for a seed, which takes the real index
// sameEntries read earlier in this capture when the file and the exclude
// file are still the ones it read: their entries changed, and reading 9
// MB again at 100,000 files cost the re-seed about 20 ms.
func (c *Capturer) readRealOnce(ctx context.Context, copied string) (*realIndex, error) {
	if r := c.real; r != nil {
		c.real = nil
		if fingerprint(c.Repo.Index) == fingerprintOf(r.fi) && c.excludeFingerprint() == r.exclude {
			c.Git.Tracef("seed: the real index as the check before read it")
			r.start = time.Now()
			return r, nil
		}
	}
	return c.readReal(ctx, copied, true)
}

// realIndex is the real index as a seed reads it once: its bytes, their
// stat data, its entries as `git ls-files -z --stage -v` lists them and
// their digest (indexState.Entries), with the exclude file's fingerprint
// taken first.
type realIndex struct {
	exclude string
	data    []byte
	fi      os.FileInfo
	list    []byte
	entries string
	// written says git listed the entries from a copy of data at the
	// path readReal was given, which the caller removes.
	written bool
	start   time.Time // for the trace
}

// readReal reads the real index and lists its entries: here
// (gitformat.StagedList), with the object format HEAD's id shows, or, when
// mayAsk allows and HEAD is unborn or the index is one gitformat does not
// read (split, sparse), by git from a copy written at copied. Both give
// the same bytes, so the digest of the last seeding holds either way.
func (c *Capturer) readReal(ctx context.Context, copied string, mayAsk bool) (*realIndex, error) {
	r := &realIndex{start: time.Now(), exclude: c.excludeFingerprint()}
	var err error
	if r.data, r.fi, err = readIndex(c.Repo.Index); err != nil {
		return nil, err
	}
	err = errors.New("no object format: HEAD is unborn")
	if n := len(c.Repo.Head); n > 0 {
		r.list, err = gitformat.StagedList(r.data, n/2)
	}
	if err != nil {
		if !mayAsk {
			return nil, err
		}
		if err := writeKeepMtime(copied, r.data, r.fi.ModTime()); err != nil {
			return nil, err
		}
		r.written = true
		if r.list, err = c.Git.Run(ctx, git.Cmd{Args: []string{"ls-files", "-z", "--stage", "-v"}, Index: copied}); err != nil {
			return nil, err
		}
	}
	sum := sha256.Sum256(r.list)
	r.entries = hex.EncodeToString(sum[:16])
	return r, nil
}

// keep reports whether the private index stays as it is for the real
// index read: it exists, and the real index's entries and the exclude
// file are those of its last seeding. Stat data alone changed, as every
// `git status`, editor or prompt refresh leaves them: re-seeding would
// throw away what the private index learnt (every untracked file's entry
// and stat data) and hash them all again. It then notes the real index's
// new fingerprint in st.
func (c *Capturer) keep(st *indexState, real *realIndex) bool {
	if _, err := os.Stat(c.PrivateIndex()); err != nil || st.Entries == "" ||
		real.entries != st.Entries || real.exclude != st.Exclude {
		return false
	}
	st.Real = fingerprintOf(real.fi)
	c.Git.Tracef("seed: the real index's entries are the last seeding's, %.1f ms", msSince(real.start))
	return true
}

// msSince is the time since start in milliseconds, for the trace.
func msSince(start time.Time) float64 { return float64(time.Since(start).Microseconds()) / 1000 }

// readIndex reads the index file at path whole, with its stat data from
// the open file: git replaces an index by renaming a new one over it, so
// the bytes and the stat data are those of one version.
func readIndex(path string) ([]byte, os.FileInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	data := make([]byte, fi.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, nil, err
	}
	return data, fi, nil
}

// writeKeepMtime writes an index's data to dst with the modification time
// mtime, the original's, so that git's racy-clean check of the copy
// stays the one of the original.
func writeKeepMtime(dst string, data []byte, mtime time.Time) error {
	tmp := dst + ".tmp"
	out, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if _, err := out.Write(data); err != nil {
		out.Close()
		return err
	}
	// Synced before the rename: a seeded private index that came back
	// empty or torn after a power loss would make git refuse every
	// capture. Seeding is rare (the real index's entries changed).
	if err := durable.Datasync(out); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	if err := os.Chtimes(tmp, mtime, mtime); err != nil {
		return err
	}
	return os.Rename(tmp, dst)
}

// writeFileAtomic replaces a file of the store, readable by the person
// alone: the capture's state names every path. Not synced: the state
// fingerprints what it describes, and a scan redoes what it cannot trust.
func writeFileAtomic(path string, data []byte) error {
	return durable.Replace(path, data, durable.How{})
}

func nulList(paths []string) []byte {
	var b strings.Builder
	for _, p := range paths {
		b.WriteString(p)
		b.WriteByte(0)
	}
	return []byte(b.String())
}

// skipWorktree lists the skip-worktree paths as record entries.
func (st *indexState) skipped() []store.Skip {
	const max = 1000 // a sparse checkout can mark most of a huge tree
	var out []store.Skip
	for i, p := range st.SkipWork {
		if i == max {
			break
		}
		out = append(out, store.Skip{Path: p, Reason: store.SkipSkipWorktree})
	}
	return out
}

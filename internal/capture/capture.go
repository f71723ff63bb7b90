// Package capture snapshots a working tree into a git tree through a
// private index, and records it as a checkpoint commit and ref. It never
// reads the real index except to copy it, and never writes it.
package capture

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/config"
	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// Capturer snapshots one working tree.
type Capturer struct {
	Repo  *git.Repo
	Store *store.Store
	Git   *git.Runner
	Cfg   config.Config
}

// Snapshot is the state of the working tree as a git tree, before it is
// recorded as a checkpoint.
type Snapshot struct {
	Tree       string
	Skipped    []store.Skip
	Submodules []store.Submodule
	// Changes counts what changed against the previous checkpoint. The
	// scan tells it (Known) when the private index last held exactly that
	// checkpoint's tree; otherwise Record compares the two trees.
	Changes store.Changes
	Known   bool
	// Raw is the overlay tree of files kept byte for byte (raw.go), or "".
	Raw string
}

// Snapshot scans the working tree and returns its tree. Objects are written
// to the repository; no ref and no journal line are. The caller holds the
// store lock, because the private index is shared state.
func (c *Capturer) Snapshot(ctx context.Context, j *store.Journal) (*Snapshot, error) {
	if err := c.Store.Init(); err != nil {
		return nil, err
	}
	st := c.loadState()
	seeded := false
	if c.needsSeed(st) {
		if err := c.seed(ctx, st); err != nil {
			return nil, err
		}
		seeded = true
	}
	entries, err := c.status(ctx)
	if err != nil {
		return nil, err
	}
	if !seeded && touchesIgnoreRules(entries) {
		// A changed .gitignore can make a path captured earlier (present
		// only in the private index) ignored now; re-seeding drops it.
		if err := c.seed(ctx, st); err != nil {
			return nil, err
		}
		seeded = true
		if entries, err = c.status(ctx); err != nil {
			return nil, err
		}
	}
	snap := &Snapshot{Skipped: st.skipped()}
	entries, beyond := beyondSymlink(c.Repo.Top, entries)
	updates, err := c.select_(ctx, entries, snap)
	if err != nil {
		return nil, err
	}
	if len(beyond) > 0 {
		// update-index refuses to even remove a path below a symlink;
		// --force-remove drops the entries without looking at the tree.
		if _, err := c.Git.Run(ctx, git.Cmd{
			Args:  []string{"update-index", "-z", "--force-remove", "--stdin"},
			Index: c.privateIndex(), Stdin: nulList(beyond),
		}); err != nil {
			return nil, err
		}
		snap.Changes.Deleted += len(beyond)
	}
	prevTree := st.Tree
	switch {
	case len(updates) == 0 && len(beyond) == 0 && !seeded && st.Tree != "":
		// Nothing changed since the private index last produced a tree:
		// skip update-index and write-tree entirely.
		snap.Tree = st.Tree
	default:
		if len(updates) > 0 {
			if _, err := c.Git.Run(ctx, git.Cmd{
				Args:  []string{"update-index", "-z", "--add", "--remove", "--replace", "--stdin"},
				Index: c.privateIndex(), Stdin: nulList(updates),
			}); err != nil {
				return nil, err
			}
		}
		if snap.Tree, err = c.writeTree(ctx); err != nil {
			return nil, err
		}
	}
	if touchesAttributes(entries) {
		st.Attrs = true
	}
	if (len(updates) > 0 || len(beyond) > 0 || len(st.Raw) > 0) && c.mayConvert(st) {
		c.updateRaw(ctx, st, append(updates, beyond...))
	}
	if snap.Raw, err = c.rawTree(ctx, st); err != nil {
		return nil, err
	}
	last := j.Latest()
	snap.Known = last != nil && !seeded && prevTree == last.Tree
	for p, commit := range st.Gitlinks {
		snap.Submodules = append(snap.Submodules, store.Submodule{Path: p, Commit: commit})
	}
	slices.SortFunc(snap.Submodules, func(a, b store.Submodule) int { return strings.Compare(a.Path, b.Path) })
	st.Tree = snap.Tree
	if err := c.saveState(st); err != nil {
		return nil, fault.Wrap(err, "failed.io", "cannot save the private index state")
	}
	return snap, nil
}

func (c *Capturer) writeTree(ctx context.Context) (string, error) {
	if _, err := os.Stat(c.privateIndex()); err != nil {
		// An empty private index: git would create it; the empty tree is
		// what an empty working tree is.
		out, err := c.Git.Run(ctx, git.Cmd{Args: []string{"hash-object", "-t", "tree", "-w", "--stdin"}, Stdin: []byte{}})
		return strings.TrimSpace(string(out)), err
	}
	out, err := c.Git.Run(ctx, git.Cmd{Args: []string{"write-tree"}, Index: c.privateIndex()})
	return strings.TrimSpace(string(out)), err
}

// entry is one line of `git status --porcelain=v2 -z` against the private
// index: a path whose working-tree state differs from what the private
// index holds.
type entry struct {
	kind byte   // '1' changed, 'u' unmerged, '?' untracked
	y    byte   // worktree status for '1': M, T, D, A
	sub  string // submodule field: "N..." or "S<c><m><u>"
	path string
}

// status runs one scan of the whole tree. Against the private index,
// --untracked-files=all lists every untracked non-ignored file, and git
// refreshes the private index's stat cache as it goes.
func (c *Capturer) status(ctx context.Context) ([]entry, error) {
	out, err := c.Git.Run(ctx, git.Cmd{
		Args: []string{"status", "--porcelain=v2", "-z", "--untracked-files=all",
			"--no-renames", "--ignore-submodules=none", "--ignored=no"},
		Index: c.privateIndex(),
	})
	if err != nil {
		return nil, err
	}
	return parseStatus(out), nil
}

func parseStatus(out []byte) []entry {
	var entries []entry
	fields := strings.Split(string(out), "\x00")
	for i := 0; i < len(fields); i++ {
		line := fields[i]
		if len(line) < 2 {
			continue
		}
		switch line[0] {
		case '1':
			f := strings.SplitN(line, " ", 9)
			if len(f) == 9 && len(f[1]) == 2 {
				entries = append(entries, entry{kind: '1', y: f[1][1], sub: f[2], path: f[8]})
			}
		case '2':
			// Renames are off; skip the original-path field if one appears.
			f := strings.SplitN(line, " ", 10)
			if len(f) == 10 && len(f[1]) == 2 {
				entries = append(entries, entry{kind: '1', y: f[1][1], sub: f[2], path: f[9]})
			}
			i++
		case 'u':
			f := strings.SplitN(line, " ", 11)
			if len(f) == 11 {
				entries = append(entries, entry{kind: 'u', y: 'M', sub: f[2], path: f[10]})
			}
		case '?':
			entries = append(entries, entry{kind: '?', y: 'A', path: line[2:]})
		}
	}
	return entries
}

// beyondSymlink takes out of entries the deleted paths that are gone
// because a leading directory became a symlink (an agent ran
// `rm -r dir && ln -s elsewhere dir`), and returns them apart.
func beyondSymlink(top string, entries []entry) (rest []entry, beyond []string) {
	rest = entries[:0:0]
	isLink := map[string]bool{}
	for _, e := range entries {
		if e.kind == '1' && e.y == 'D' && leadingSymlink(top, e.path, isLink) {
			beyond = append(beyond, e.path)
			continue
		}
		rest = append(rest, e)
	}
	return rest, beyond
}

// leadingSymlink reports whether a leading component of path is a symlink,
// remembering the answer per directory.
func leadingSymlink(top, path string, isLink map[string]bool) bool {
	for i := strings.IndexByte(path, '/'); i >= 0; i = nextSlash(path, i) {
		dir := path[:i]
		link, ok := isLink[dir]
		if !ok {
			fi, err := os.Lstat(filepath.Join(top, dir))
			link = err == nil && fi.Mode()&os.ModeSymlink != 0
			isLink[dir] = link
		}
		if link {
			return true
		}
	}
	return false
}

func nextSlash(path string, i int) int {
	j := strings.IndexByte(path[i+1:], '/')
	if j < 0 {
		return -1
	}
	return i + 1 + j
}

func touchesIgnoreRules(entries []entry) bool {
	for _, e := range entries {
		if filepath.Base(strings.TrimSuffix(e.path, "/")) == ".gitignore" {
			return true
		}
	}
	return false
}

// select_ turns status entries into the paths to update, applying the
// size limits and the nested-repository rule, and counting changes.
func (c *Capturer) select_(ctx context.Context, entries []entry, snap *Snapshot) ([]string, error) {
	type sized struct {
		path  string
		bytes int64
	}
	var updates []string
	var added []sized
	var total int64
	for _, e := range entries {
		if e.kind == '1' && e.y == '.' {
			continue // differs from HEAD only, not from the private index
		}
		if e.kind == '1' && strings.HasPrefix(e.sub, "S") && e.sub[1] != 'C' {
			continue // a submodule with new content but the same commit
		}
		path := e.path
		if e.kind == '?' && strings.HasSuffix(path, "/") {
			// git lists a nested repository as one directory.
			path = strings.TrimSuffix(path, "/")
			if !c.hasCommit(ctx, path) {
				snap.Skipped = append(snap.Skipped, store.Skip{Path: path, Reason: store.SkipNestedRepo})
				continue
			}
			snap.Submodules = append(snap.Submodules, store.Submodule{Path: path})
			updates = append(updates, path)
			snap.Changes.Added++
			continue
		}
		fi, err := os.Lstat(filepath.Join(c.Repo.Top, path))
		if err == nil && fi.Mode().IsRegular() {
			if fi.Size() > c.Cfg.MaxFileBytes {
				snap.Skipped = append(snap.Skipped, store.Skip{Path: path, Bytes: fi.Size(), Reason: store.SkipTooBig})
				continue
			}
			total += fi.Size()
			added = append(added, sized{path, fi.Size()})
		}
		updates = append(updates, path)
		switch {
		case e.kind == '?':
			snap.Changes.Added++
		case e.y == 'D':
			snap.Changes.Deleted++
		default:
			snap.Changes.Modified++
		}
	}
	if total > c.Cfg.MaxTotalBytes {
		slices.SortFunc(added, func(a, b sized) int { return int(b.bytes - a.bytes) })
		var names []string
		var data []store.Skip
		for i := 0; i < len(added) && i < 5; i++ {
			names = append(names, fmt.Sprintf("%s (%s)", added[i].path, HumanBytes(added[i].bytes)))
			data = append(data, store.Skip{Path: added[i].path, Bytes: added[i].bytes})
		}
		return nil, fault.New("failed.checkpoint_too_large",
			"the checkpoint would add %s of new content, more than checkpoint.maxTotalBytes (%s)",
			HumanBytes(total), HumanBytes(c.Cfg.MaxTotalBytes)).
			WithHint("largest: "+strings.Join(names, ", "),
				"if that is a build or dependency directory, add it to .gitignore; or raise the limit with 'git config checkpoint.maxTotalBytes 2g'").
			WithData(map[string]any{"bytes": total, "largest": data})
	}
	return updates, nil
}

// hasCommit reports whether the nested repository at path has a HEAD commit;
// only then can it be recorded as a gitlink.
func (c *Capturer) hasCommit(ctx context.Context, path string) bool {
	_, err := c.Git.Run(ctx, git.Cmd{Args: []string{"rev-parse", "-q", "--verify", "HEAD^{commit}"},
		Dir: filepath.Join(c.Repo.Top, path), Env: []string{"GIT_DIR=" + filepath.Join(c.Repo.Top, path, ".git")}})
	return err == nil
}

// HumanBytes prints a size the way people read it.
func HumanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return strconv.FormatFloat(float64(n)/(1<<30), 'f', 1, 64) + " GiB"
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
	case n >= 1<<10:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', 1, 64) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " B"
}

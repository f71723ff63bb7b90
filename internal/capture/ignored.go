package capture

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/gitformat"
)

// ignoreRulesChanged reports whether a scan found a .gitignore changed,
// new or gone since the last capture applied it: the rules of every path
// below it may have changed. One pending as that capture took it
// (pending.go) was applied then (ignoredNow); the scan lists it only
// because the private index still holds an older version, and asking
// again would cost every later scan a read of both indexes.
func (c *Capturer) ignoreRulesChanged(st *indexState, entries []entry) bool {
	for _, e := range entries {
		p := strings.TrimSuffix(e.path, "/")
		if filepath.Base(p) != ".gitignore" {
			continue
		}
		old, ok := st.Pending[p]
		if !ok {
			return true
		}
		fi, err := os.Lstat(filepath.Join(c.Repo.Top, p))
		key := ""
		if err == nil {
			key = statKey(fi)
		}
		if old.differs(err == nil, key) != "" {
			return true
		}
	}
	return false
}

// ignoredNow lists, sorted, the files captured untracked earlier (in the
// private index, not in the real one) that the ignore rules ignore now: a
// changed .gitignore takes them out of the tree, as `git add -A` into a
// copy of the real index would never take them. What the rules no longer
// ignore needs nothing here: the scan, under the new rules, lists it as
// untracked. It also drops from st.Unsupported the paths ignored now.
//
// Before, a changed .gitignore re-seeded the private index, which meant a
// second scan, every untracked file hashed again and the whole index
// rewritten (docs/speed.md, "A changed ignore rule"). Here both
// indexes are read without git, and one check-ignore asks about the few
// paths only the private index holds. ok is false where either index is
// one gitformat does not read (HEAD unborn, a split or sparse index): the
// caller re-seeds.
//
// also are more paths to ask about where the real index does not hold
// them: a partial capture's base holds the files a scan took without
// writing them into the private index (st.Pending), which a scan need not
// ask about, since it lists each one that is not ignored.
func (c *Capturer) ignoredNow(ctx context.Context, st *indexState, also []string) (paths []string, ok bool, err error) {
	only, ok, err := c.privateOnly(also)
	if !ok || err != nil {
		return nil, ok, err
	}
	// A path below what is now a symlink is gone (the scan lists it), and
	// check-ignore refuses the whole list for it.
	seen := map[string]bool{}
	ask := slices.DeleteFunc(append(slices.Clone(only), st.Unsupported...), func(p string) bool { return c.beyondSymlink(p, seen) })
	ignored, err := c.Git.Ignored(ctx, ask, nil)
	if err != nil {
		// The re-seed gives the same tree without asking about each path.
		c.Git.Tracef("ignore rules changed: %v; re-seeding", err)
		return nil, false, nil
	}
	for _, p := range only {
		if ignored[p] {
			paths = append(paths, p)
		}
	}
	st.Unsupported = slices.DeleteFunc(st.Unsupported, func(p string) bool { return ignored[p] })
	c.Git.Tracef("ignore rules changed: %d of the %d paths only the private index holds are ignored now", len(paths), len(only))
	return paths, true, nil
}

// privateOnly lists, sorted, the paths the private index or also holds
// and the real one does not. Both indexes are in git's order (by the bytes
// of the path), so one pass over each finds them. ok is false where either
// is one gitformat does not read.
func (c *Capturer) privateOnly(also []string) (only []string, ok bool, err error) {
	if len(c.Repo.Head) == 0 {
		return nil, false, nil // no object format to read with
	}
	hashSize := len(c.Repo.Head) / 2
	priv, _, err := readIndex(c.PrivateIndex())
	if errors.Is(err, fs.ErrNotExist) && len(also) == 0 {
		return nil, true, nil // an empty private index holds nothing
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, false, err
	}
	var real [][]byte
	data, _, err := readIndex(c.Repo.Index)
	if err == nil {
		err = gitformat.ParseIndex(data, hashSize, func(e *gitformat.IndexEntry) bool {
			if n := len(real); n == 0 || !bytes.Equal(real[n-1], e.Path) {
				real = append(real, e.Path) // once, whatever its stages
			}
			return true
		})
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) { // none: all the private one holds is its own
		return nil, false, nil
	}
	i := 0
	if priv != nil {
		err = gitformat.ParseIndex(priv, hashSize, func(e *gitformat.IndexEntry) bool {
			for i < len(real) && bytes.Compare(real[i], e.Path) < 0 {
				i++
			}
			if i < len(real) && bytes.Equal(real[i], e.Path) {
				return true
			}
			if n := len(only); n == 0 || only[n-1] != string(e.Path) {
				only = append(only, string(e.Path))
			}
			return true
		})
		if err != nil {
			return nil, false, nil
		}
	}
	if len(also) == 0 {
		return only, true, nil
	}
	for _, p := range also {
		if _, tracked := slices.BinarySearchFunc(real, p, func(r []byte, p string) int { return strings.Compare(string(r), p) }); !tracked {
			only = append(only, p)
		}
	}
	slices.Sort(only)
	return slices.Compact(only), true, nil
}

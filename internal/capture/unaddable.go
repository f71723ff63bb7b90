package capture

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"

	"github.com/git-checkpoint/git-checkpoint/internal/config"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/gitformat"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// One path git cannot add must never block the rest (DESIGN invariant
// 11). `git update-index --add` stops at the first file it cannot store
// and writes nothing: a file under `working-tree-encoding=UTF-16` written
// without a byte-order mark ("BOM is required"), a file whose clean
// filter fails. Such a file is stored as its bytes are (addRaw): they are
// a faithful record of it, and since a checkout of them does not give them
// back, the raw overlay (raw.go) keeps them too, which a rewind writes.
// A path that is no file, symbolic link or directory (a FIFO, a socket, a
// device) git cannot add at all: the scan skips it (unsupportedType), and
// the checkpoint lists it.

// addPaths stores paths in index with `git update-index ARGS -z --stdin`,
// run by g (the capture's git, or one writing objects aside:
// git.Runner.ScratchObjects).
// When git refuses, the list is halved until the paths it refuses are
// found, each then stored by addRaw: a refused path costs about twice the
// logarithm of the list's length in processes, a capture without one
// nothing more. A path addRaw cannot store either is the error: the cause
// is not the path (a full disk, a lock), and every half would fail alike.
func (c *Capturer) addPaths(ctx context.Context, g *git.Runner, index string, args []string, paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	_, err := g.Run(ctx, git.Cmd{
		Args:  append(args[:len(args):len(args)], "-z", "--stdin"),
		Index: index, Stdin: nulList(paths),
	})
	switch {
	case err == nil:
		return nil
	case len(paths) == 1:
		return c.addRaw(ctx, g, index, paths[0], err)
	}
	half := len(paths) / 2
	if err := c.addPaths(ctx, g, index, args, paths[:half]); err != nil {
		return err
	}
	return c.addPaths(ctx, g, index, args, paths[half:])
}

// addRaw stores the regular file at p in index as a blob of its bytes
// (`hash-object --no-filters`), after git refused to add it (refused).
// Anything else is refused's error.
func (c *Capturer) addRaw(ctx context.Context, g *git.Runner, index, p string, refused error) error {
	fi, err := os.Lstat(filepath.Join(c.Repo.Top, p))
	if err != nil || !fi.Mode().IsRegular() {
		return refused
	}
	ids, err := g.WriteBlobs(ctx, []string{p})
	if err != nil || ids[p] == "" {
		return errors.Join(refused, err)
	}
	entry := git.IndexEntry{Mode: gitformat.FileMode(fi.Mode()), OID: ids[p], Path: p}
	if err := g.UpdateIndexInfo(ctx, index, []git.IndexEntry{entry}); err != nil {
		return errors.Join(refused, err)
	}
	return nil
}

// Lenient is the configuration under which git reads the tree for a
// capture (git.Runner.Lenient): every filter the user marked required is
// not. A required filter that fails makes git die, in `git status`, `git
// diff` and the racy-clean check of an index it writes as well as in `git
// add`, so one file would stop every checkpoint; not required, git takes
// the file's bytes as they are, which the raw overlay then keeps if a
// checkout would not give them back.
func Lenient(cfg config.Config) []string {
	var out []string
	for _, name := range cfg.RequiredFilters {
		out = append(out, "filter."+name+".required=false")
	}
	return out
}

// unsupportedType reports whether fi is of a type git cannot store: not a
// file, a symbolic link or a directory.
func unsupportedType(fi os.FileInfo) bool {
	m := fi.Mode()
	return !m.IsRegular() && !m.IsDir() && m&os.ModeSymlink == 0
}

// listUnsupported lists again, as skipped, the paths of st.Unsupported
// that still are of a type git cannot store, which no scan reports after
// the first (git's walk passes over a FIFO), and forgets the others.
func (c *Capturer) listUnsupported(st *indexState, snap *Snapshot) {
	listed := map[string]bool{}
	for _, s := range snap.Skipped {
		listed[s.Path] = true
	}
	st.Unsupported = slices.DeleteFunc(st.Unsupported, func(p string) bool {
		fi, err := os.Lstat(filepath.Join(c.Repo.Top, p))
		if err != nil || !unsupportedType(fi) {
			return true
		}
		if !listed[p] {
			snap.Skipped = append(snap.Skipped, store.Skip{Path: p, Reason: store.SkipUnsupported})
		}
		return false
	})
}

package workspace

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/remote"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
	"github.com/git-checkpoint/git-checkpoint/internal/turns"
)

// Resolve finds the checkpoint id names: one of this tree's (in j and
// refs), or one of a fetched store's ("1c1aecbe:k3"), with the journal it
// belongs to, so that turns are read from the store that recorded them.
func (w *Workspace) Resolve(ctx context.Context, j *store.Journal, refs store.Refs, id string) (*store.Record, *store.Journal, error) {
	if _, _, ok := turns.InStore(id); !ok {
		r, err := turns.Resolve(j, refs, id)
		return r, j, err
	}
	own, err := w.Store.ID()
	if err != nil {
		return nil, nil, err
	}
	return remote.Resolve(ctx, w.Git, own, id)
}

// ResolveRecord is Resolve without the journal the checkpoint belongs to.
func (w *Workspace) ResolveRecord(ctx context.Context, j *store.Journal, refs store.Refs, id string) (*store.Record, error) {
	r, _, err := w.Resolve(ctx, j, refs, id)
	return r, err
}

// Fetched resolves the id of a fetched store's checkpoint ("1c1aecbe:k3"),
// whose records are that store's, not this tree's.
func (w *Workspace) Fetched(ctx context.Context, id string) (*store.Record, error) {
	return w.ResolveRecord(ctx, nil, nil, id)
}

// FetchedStores reads the stores fetched here, every one but this tree's.
func (w *Workspace) FetchedStores(ctx context.Context) ([]*remote.Fetched, error) {
	own, err := w.Store.ID()
	if err != nil {
		return nil, err
	}
	return remote.Stores(ctx, w.Git, own)
}

// Rel turns a path the person typed, relative to where they stand, into
// a path from the top of the tree; a path outside the tree is an error. A
// relative path is joined to the prefix git found for the current
// directory, not to the directory's name: reached through a symlink, that
// name is not below the top git reports, which is always the real path.
func (w *Workspace) Rel(p string) (string, error) {
	var rel string
	if filepath.IsAbs(p) {
		var err error
		// The last component is the path itself, even when it is a
		// symlink: only the directories on its way are resolved.
		clean := filepath.Clean(p)
		real := filepath.Join(realPath(filepath.Dir(clean)), filepath.Base(clean))
		if rel, err = filepath.Rel(w.Repo.Top, real); err != nil {
			rel = ".."
		}
	} else {
		rel = filepath.Join(filepath.FromSlash(w.Repo.Prefix), p)
	}
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return "", fault.New(fault.InvalidPath, "%s is outside the working tree %s", fault.Quote(p), w.Repo.Top)
	}
	if rel == "." {
		return "", nil
	}
	return filepath.ToSlash(rel), nil
}

// realPath resolves the symlinks in p, or in its longest leading part that
// exists (p may name a path the rewind is to create).
func realPath(p string) string {
	var rest []string
	for dir := p; ; dir = filepath.Dir(dir) {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(append([]string{real}, rest...)...)
		}
		if filepath.Dir(dir) == dir {
			return p
		}
		rest = append([]string{filepath.Base(dir)}, rest...)
	}
}

// Rels is Rel for each of paths.
func (w *Workspace) Rels(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		rel, err := w.Rel(p)
		if err != nil {
			return nil, err
		}
		out = append(out, rel)
	}
	return out, nil
}

// Pathspec is Rel as a literal git pathspec from the top of the tree.
func (w *Workspace) Pathspec(p string) (string, error) {
	rel, err := w.Rel(p)
	if err != nil {
		return "", err
	}
	return ":(top,literal)" + rel, nil
}

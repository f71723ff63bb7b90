package rewind

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"

	"github.com/git-checkpoint/git-checkpoint/internal/capture"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/restore"
)

// hiddenAside starts listing what the ignore rules hide where the
// .gitignore files the plan writes change them (ignoreScope): the capture
// after the rewind then asks which of those the rules it wrote no longer
// hide (capture.Hidden), rather than walking the whole tree again. It
// runs beside the staging, and must end before the first file is
// written; the function it returns waits for it, and gives nil (a full
// scan after) where the list could not be made.
func (r *Rewinder) hiddenAside(ctx context.Context, p *restore.Plan) (wait func() *capture.Hidden) {
	if !slices.ContainsFunc(p.Files, func(f restore.File) bool { return path.Base(f.Path) == ".gitignore" }) {
		return func() *capture.Hidden { return nil }
	}
	done := make(chan *capture.Hidden, 1)
	go func() {
		scope, err := r.ignoreScope(ctx, p)
		var h *capture.Hidden
		if err == nil {
			h, err = r.Capture.Hidden(ctx, scope)
		}
		if err != nil {
			r.Git.Tracef("hidden: %v; the capture after scans", err)
		}
		done <- h
	}()
	return func() *capture.Hidden { return <-done }
}

// ignoreScope is where the .gitignore files the plan writes change the
// rules: each one's lines now, on disk, against the target's.
func (r *Rewinder) ignoreScope(ctx context.Context, p *restore.Plan) (*capture.IgnoreScope, error) {
	scope := &capture.IgnoreScope{}
	type change struct {
		dir string
		old []byte
	}
	var oids []string
	var changes []change
	for _, f := range p.Files {
		if path.Base(f.Path) != ".gitignore" {
			continue
		}
		dir := path.Dir(f.Path)
		old, ok := readIgnore(filepath.Join(r.Repo.Top, f.Path))
		switch {
		case !ok:
			scope.Dir(dir)
		case f.Mode == git.AbsentMode:
			scope.Change(dir, old, nil)
		case f.Mode != "100644" && f.Mode != "100755":
			scope.Dir(dir) // a symlink, which git does not read, or a directory
		default:
			oid := f.OID
			if f.Raw != "" {
				oid = f.Raw // the bytes written
			}
			oids, changes = append(oids, oid), append(changes, change{dir, old})
		}
	}
	err := r.Git.ReadBlobs(ctx, oids, func(i int, body []byte) error {
		scope.Change(changes[i].dir, changes[i].old, body)
		return nil
	})
	return scope, err
}

// readIgnore reads a .gitignore as git does: ok is false where it is
// something git does not read as one (a symlink, a directory) or cannot
// be read; none is no rules.
func readIgnore(name string) (data []byte, ok bool) {
	fi, err := os.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, true
	}
	if err != nil || !fi.Mode().IsRegular() {
		return nil, false
	}
	data, err = os.ReadFile(name)
	return data, err == nil
}

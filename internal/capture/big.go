package capture

import (
	"context"
	"io/fs"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/git"
)

// checkpoint.maxFileBytes keeps big new content out of the repository: a
// file over it is skipped and listed. A file whose content is a blob the
// repository already holds (a big tracked file checked out again, or
// brought back by a rewind) adds no bytes, so it is recorded like any
// other: skipped, it made a capture hold it and list it at once, a dry
// run and the rewind after it disagree, and a rewind that restored it
// report itself inexact (docs/decisions.md, "Big files git already
// holds").

// tooBig reports whether the regular file at path (fi its lstat) is left
// out of the checkpoint for its size: over checkpoint.maxFileBytes, and
// its content not a blob the repository holds. Finding that out reads
// the file, so a file found to be new content is remembered with its
// stat data (st.TooBig, which a whole scan keeps for the next) and not
// read again until they change: a big file that stays changed is
// reported by every scan. Only that answer is remembered: a file found
// held goes into the private index, which git's stat cache then vouches
// for.
func (c *Capturer) tooBig(ctx context.Context, st *indexState, path string, fi fs.FileInfo, seen map[string]string) bool {
	if fi.Size() <= c.Cfg.MaxFileBytes {
		return false
	}
	key := statKey(fi)
	if key == "" || st.TooBig[path] != key {
		if c.held(ctx, path) {
			return false
		}
	}
	if key != "" && seen != nil {
		seen[path] = key
	}
	return true
}

// held reports whether the content git would record for the file at path
// (its clean filter and line endings applied, as `git add` does) is an
// object the repository already has. In a partial clone a missing
// object would be fetched to answer: there the answer is no.
func (c *Capturer) held(ctx context.Context, path string) bool {
	if c.Cfg.PartialClone {
		return false
	}
	out, err := c.Git.Run(ctx, git.Cmd{Args: []string{"hash-object", "--", path}})
	if err != nil {
		return false
	}
	id := strings.TrimSpace(string(out))
	_, err = c.Git.Run(ctx, git.Cmd{Args: []string{"cat-file", "-e", id}})
	return err == nil
}

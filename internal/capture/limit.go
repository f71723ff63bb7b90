package capture

import (
	"context"
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/config"
	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// budget is how a capture applies checkpoint.maxTotalBytes, the bound on
// the new content one capture adds (a runaway dependency or build
// directory would otherwise fill the disk with objects).
//
// A checkpoint someone asked for (the command, a hook) is strict: over
// the limit it fails with failed.checkpoint_too_large, which names the
// largest files and what to do, and records nothing. Every other snapshot
// (a rewind's scan, its safety checkpoint and the checkpoint after it, a
// dry run, a diff) leaves the new untracked files out instead, listed as
// skipped (too_big_total), and takes the rest: a rewind then leaves them
// as they are (a plan's too_big) and restores everything else, so a limit
// never makes a rewind impossible (invariant 11).
type budget struct {
	strict bool
	// stored are paths a rewind has just written with content the store
	// already holds (its target's blobs): bringing them back adds no new
	// content, so they are not counted.
	stored map[string]bool
	// newest is the newest checkpoint's tree, or "": what it holds is
	// not new either.
	newest string
	// gone are the private index's paths the scan found deleted: the
	// snapshot does not keep them (leaveOut).
	gone map[string]bool
}

// sized is a file a capture adds, with its size; untracked says no
// checkpoint the capture builds on holds the path.
type sized struct {
	path      string
	bytes     int64
	untracked bool
}

// over applies the budget to the files a capture adds: nil when they fit
// or the budget is not strict, failed.checkpoint_too_large otherwise.
// leave, for a budget that is not strict, is the untracked files to leave
// out, grouped (see leaveOut); nil when none.
//
// New content is what no checkpoint holds: files counted by their size
// against the private index, whose content a rewind brought back
// (b.stored) or that the newest checkpoint holds as they are (a partial
// capture after a rewind does not update the private index) do not
// count. The second is looked up only when the count is over, which is
// rare: a process to find the newest checkpoint's blobs at those paths,
// and one to hash the files whose size is theirs.
func (c *Capturer) over(ctx context.Context, b budget, added []sized) (leave []store.Skip, err error) {
	counted := slices.DeleteFunc(slices.Clone(added), func(a sized) bool { return b.stored[a.path] })
	if c.fits(b, counted) {
		return nil, nil
	}
	held, err := c.heldBy(ctx, b.newest, counted)
	if err != nil {
		return nil, err
	}
	counted = slices.DeleteFunc(counted, func(a sized) bool { return held[a.path] })
	switch {
	case c.fits(b, counted):
		return nil, nil
	case b.strict:
		var total int64
		for _, a := range counted {
			total += a.bytes
		}
		return nil, c.tooLarge(total, counted)
	}
	return c.leaveOut(ctx, counted, b.gone)
}

// fits reports whether the files added are within the limit: all of them
// for a strict budget, the untracked ones otherwise.
func (c *Capturer) fits(b budget, added []sized) bool {
	var n int64
	for _, a := range added {
		if b.strict || a.untracked {
			n += a.bytes
		}
	}
	return n <= c.Cfg.MaxTotalBytes
}

// heldBy returns the files of added that tree (a checkpoint's, or "")
// holds at their path with their content.
func (c *Capturer) heldBy(ctx context.Context, tree string, added []sized) (map[string]bool, error) {
	held := map[string]bool{}
	if tree == "" {
		return held, nil
	}
	reqs := make([]string, len(added))
	for i, a := range added {
		reqs[i] = tree + ":" + a.path
	}
	objs, err := c.Git.CatFileCheck(ctx, reqs)
	if err != nil {
		return nil, err
	}
	want := map[string]string{}
	var same []string
	for i, o := range objs {
		if !o.Missing && o.Type == "blob" && o.Size == added[i].bytes {
			want[added[i].path] = o.ID
			same = append(same, added[i].path)
		}
	}
	if len(same) == 0 {
		return held, nil
	}
	ids, err := c.Git.HashFiles(ctx, same)
	if err != nil {
		return nil, err
	}
	for p, id := range ids {
		held[p] = id == want[p]
	}
	return held, nil
}

// leaveOut chooses the untracked files a snapshot leaves out when they
// are over the limit: each untracked directory (one that holds no file
// the snapshot keeps from the private index, node_modules/) or file over
// the limit by itself, and if the rest is still over it, every untracked
// one. Changes to tracked files are always taken: they are what a rewind
// overwrites.
//
// The choice depends on the files on disk alone, never on which were
// taken nor on what the private index still held before this scan: the
// next scan (a rewind applying what its dry run showed) sees the same
// files and leaves out the same ones, so its plan is the one shown. git's
// own listing of untracked directories (ls-files --directory) would not
// do: a file the private index held until this scan deleted it keeps its
// directory from counting as untracked, once only.
func (c *Capturer) leaveOut(ctx context.Context, added []sized, gone map[string]bool) ([]store.Skip, error) {
	entries, err := c.Git.LsStage(ctx, c.PrivateIndex())
	if err != nil {
		return nil, err
	}
	held := map[string]bool{} // directories holding a file the snapshot keeps
	for _, e := range entries {
		if gone[e.Path] {
			continue
		}
		for d := parentOf(e.Path); d != "" && !held[d]; d = parentOf(d) {
			held[d] = true
		}
	}
	// rootOf is the outermost directory holding p that holds no kept
	// file, or p.
	rootOf := func(p string) string {
		root := p
		for d := parentOf(p); d != "" && !held[d]; d = parentOf(d) {
			root = d
		}
		return root
	}
	bytes := map[string]int64{}
	var rest int64
	for _, a := range added {
		if a.untracked {
			bytes[rootOf(a.path)] += a.bytes
		}
	}
	for _, n := range bytes {
		if n <= c.Cfg.MaxTotalBytes {
			rest += n
		}
	}
	var leave []store.Skip
	for root, n := range bytes {
		if n > c.Cfg.MaxTotalBytes || rest > c.Cfg.MaxTotalBytes {
			leave = append(leave, store.Skip{Path: root, Bytes: n, Reason: store.SkipTooBigTotal})
		}
	}
	slices.SortFunc(leave, func(a, b store.Skip) int { return strings.Compare(a.Path, b.Path) })
	return leave, nil
}

// leftOut reports whether a skip of leaveOut holds path.
func leftOut(leave []store.Skip, path string) bool {
	for _, s := range leave {
		if path == s.Path || strings.HasPrefix(path, s.Path+"/") {
			return true
		}
	}
	return false
}

// tooLarge is failed.checkpoint_too_large, naming the five largest files
// and a limit that would take them all.
func (c *Capturer) tooLarge(total int64, added []sized) error {
	slices.SortFunc(added, func(a, b sized) int { return int(b.bytes - a.bytes) })
	var names []string
	var data []store.Skip
	for i := 0; i < len(added) && i < 5; i++ {
		names = append(names, fmt.Sprintf("%s (%s)", added[i].path, HumanBytes(added[i].bytes)))
		data = append(data, store.Skip{Path: added[i].path, Bytes: added[i].bytes})
	}
	return fault.New(fault.FailedCheckpointTooLarge,
		"the checkpoint would add %s of new content, more than checkpoint.maxTotalBytes (%s)",
		HumanBytes(total), HumanBytes(c.Cfg.MaxTotalBytes)).
		WithHint("largest: "+strings.Join(names, ", "),
			"if that is a build or dependency directory, add it to .gitignore; or raise the limit with 'git config checkpoint.maxTotalBytes "+config.FormatBytes(roomFor(total))+"'").
		WithData(map[string]any{"bytes": total, "largest": data})
}

// roomFor is a limit above total: the next power of two, at least 1 KiB,
// which git's size suffixes write in a few characters (32k, 1g).
func roomFor(total int64) int64 {
	if total < 1<<10 {
		return 1 << 10
	}
	return 1 << bits.Len64(uint64(total))
}

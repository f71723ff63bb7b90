package capture

import (
	"context"
	"os"
	"path/filepath"

	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// Every checkpoint writes its objects loose: a blob per changed file, a
// tree per directory on its paths and a commit, each a file of its own
// that takes a whole disk block (4 KiB here) however small it is. A long
// session of per-tool checkpoints, each a few KiB of content, so took
// 35 KiB of disk apiece until the repository's gc packed them. So every
// checkpoint.packEvery-th checkpoint (by number) packs the loose objects
// (git.PackLoose), two git processes once in that many captures. It
// deletes nothing that is not then in a pack, and never prunes: it is not
// gc, which the tool never runs (DESIGN 2, invariant 8).

// maxLooseToPack is the most loose objects a capture packs. Past it, most
// are not the checkpoints' (a large import, an unpacked clone), packing
// them would cost a hook seconds, and git's own gc is about to pack them
// anyway (gc.auto packs at 6,700).
const maxLooseToPack = 3000

// PackIfDue packs the loose objects after recs when the number of one of
// them is a multiple of Cfg.PackEvery: a capture's checkpoint, or a
// rewind's two (its safety checkpoint and the one after it), whose
// numbers count like any other's; a multiple that fell on a rewind's was
// once passed over, so a tree only rewound kept a pack per rewind. It
// never fails the checkpoint, which is safe already: a pack that could
// not be made leaves the objects loose, as they were.
func (c *Capturer) PackIfDue(ctx context.Context, recs ...*store.Record) {
	every := c.Cfg.PackEvery
	due := false
	for _, rec := range recs {
		due = due || (rec != nil && !rec.Reused && every > 0 && rec.N%every == 0)
	}
	if !due || c.Cfg.PartialClone {
		return
	}
	// A repack that rolls up a pack a multi-pack index covers deletes
	// that index, which the user's maintenance keeps: leave such a
	// repository to it.
	packs := filepath.Join(c.Repo.CommonDir, "objects", "pack")
	if _, err := os.Stat(filepath.Join(packs, "multi-pack-index")); err == nil {
		return
	}
	loose, n, err := c.Git.CountObjects(ctx)
	large := largePacks(packs)
	// Checkpoints taken in a group (group.go) write only packs: small
	// packs are rolled up even when nothing is loose.
	if err != nil || loose > maxLooseToPack || (loose == 0 && n-len(large) < 2) {
		return
	}
	c.Git.PackLoose(ctx, large)
}

// largePack is the size from which a pack is never rolled up by a
// capture's pack: rewriting the repository's own pack (hundreds of MB
// for a large tree) would cost a hook seconds to minutes. What the
// checkpoints write rolls up into packs below it, a few thousand
// checkpoints each.
const largePack = 8 << 20

// largePacks names the packs in dir of largePack bytes or more.
func largePacks(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if filepath.Ext(e.Name()) != ".pack" {
			continue
		}
		if fi, err := e.Info(); err == nil && fi.Size() >= largePack {
			out = append(out, e.Name())
		}
	}
	return out
}

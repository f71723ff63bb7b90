package doctor

import (
	"context"
	"fmt"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
)

// RemovedWorktree is a removed linked worktree whose checkpoints stay.
type RemovedWorktree struct {
	Worktree    string `json:"worktree"`
	Checkpoints int    `json:"checkpoints"`
}

// RemovedWorktrees lists the worktrees that are gone but whose refs
// stay under refs/checkpoints/wt-<name>/ (store.Orphans): no command of
// any tree lists them, so status and doctor name them.
func (d *Doctor) RemovedWorktrees(ctx context.Context) ([]RemovedWorktree, error) {
	orphans, err := d.Store.Orphans(ctx)
	if err != nil {
		return nil, err
	}
	out := []RemovedWorktree{}
	for _, o := range orphans {
		out = append(out, RemovedWorktree{Worktree: o.Worktree, Checkpoints: len(o.Refs)})
	}
	return out, nil
}

// RemovedFate says what becomes of a removed worktree's checkpoints.
func RemovedFate(keepFor string) string {
	return "git checkpoint prune drops them once older than checkpoint.keepFor (" + keepFor + ")"
}

// checkRemovedWorktrees names the removed worktrees whose checkpoints
// stay. They are no fault (retention takes them in time), so the check
// passes; it says nothing when there are none.
func (d *Doctor) checkRemovedWorktrees(ctx context.Context) ([]Check, error) {
	removed, err := d.RemovedWorktrees(ctx)
	if err != nil || len(removed) == 0 {
		return nil, err
	}
	var parts []string
	for _, r := range removed {
		parts = append(parts, fmt.Sprintf("%s holds %d %s", r.Worktree, r.Checkpoints, fault.Plural(r.Checkpoints, "checkpoint", "checkpoints")))
	}
	return []Check{{Name: "removed_worktrees", OK: true,
		Message: "removed worktrees: " + strings.Join(parts, ", ") + "; " + RemovedFate(d.KeepFor)}}, nil
}

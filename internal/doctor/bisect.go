package doctor

import (
	"context"

	"github.com/git-checkpoint/git-checkpoint/internal/bisect"
)

// checkBisect reports the temporary worktrees killed bisects left. It
// says nothing while there are none, and never reports a bisect that
// still runs (it holds its marker's lock).
func (d *Doctor) checkBisect(context.Context) ([]Check, error) {
	ls, err := bisect.Leftovers(d.Repo.StateDir)
	if err != nil {
		return nil, err
	}
	var cs []Check
	for _, l := range ls {
		cs = append(cs, Check{Name: "bisect", Message: l.Describe(),
			Fix: "git checkpoint doctor --fix (the next bisect also does this), or by hand: " + l.Remedy()})
	}
	return cs, nil
}

// repairBisect removes what killed bisects left.
func (d *Doctor) repairBisect(ctx context.Context) ([]string, error) {
	ls, err := bisect.Leftovers(d.Repo.StateDir)
	if err != nil {
		return nil, err
	}
	var did []string
	for _, l := range ls {
		if err := bisect.Clean(ctx, d.Git, l); err != nil {
			return did, err
		}
		if l.Tree != "" {
			did = append(did, "removed the temporary worktree a killed bisect left: "+l.Tree)
		} else {
			did = append(did, "removed what a killed bisect left: "+l.Marker)
		}
	}
	return did, nil
}

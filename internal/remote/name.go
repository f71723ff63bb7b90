package remote

import (
	"context"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/git"
)

// Default is the remote push and fetch use when none is named: the
// current branch's upstream remote (branch.<name>.remote, unless it is
// ".", the repository itself), else origin, as `git push` picks one.
func Default(ctx context.Context, g *git.Runner, branch string) (string, error) {
	name, ok := strings.CutPrefix(branch, "refs/heads/")
	if ok {
		r, set, err := g.ConfigGet(ctx, "branch."+name+".remote")
		if err != nil {
			return "", err
		}
		if set && r != "" && r != "." {
			return r, nil
		}
	}
	return "origin", nil
}

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
		out, err := g.Run(ctx, git.Cmd{Args: []string{"config", "--get", "branch." + name + ".remote"}})
		switch {
		case err == nil:
			if r := strings.TrimSpace(string(out)); r != "" && r != "." {
				return r, nil
			}
		case !git.NoMatch(err):
			return "", err
		}
	}
	return "origin", nil
}

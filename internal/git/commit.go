package git

import (
	"context"
	"strings"
)

// Identity is the author and committer of the commits the tool writes
// (checkpoints, published records): the tool itself, so that they need no
// user.name and are never signed as the user.
var Identity = []string{
	"GIT_AUTHOR_NAME=" + identityName, "GIT_AUTHOR_EMAIL=" + identityEmail,
	"GIT_COMMITTER_NAME=" + identityName, "GIT_COMMITTER_EMAIL=" + identityEmail,
}

const identityName, identityEmail = "git-checkpoint", "git-checkpoint@localhost"

// Who is the Identity as a commit's body names it (gitformat.Commit).
const Who = identityName + " <" + identityEmail + ">"

// CommitRequest is a commit to write with CommitTree.
type CommitRequest struct {
	Tree    string
	Parents []string
	// Message goes on standard input, so any text survives as it is.
	Message string
	// Env sets the identity and dates (GIT_AUTHOR_*, GIT_COMMITTER_*), so
	// that a commit needs no user.name and never takes the user's.
	Env []string
}

// CommitTree writes a commit object and returns its id. --no-gpg-sign
// beside the pinned commit.gpgSign=false: a checkpoint is never signed,
// and no signing program is ever started from a hook.
func (r *Runner) CommitTree(ctx context.Context, req CommitRequest) (string, error) {
	args := []string{"commit-tree", "--no-gpg-sign", req.Tree}
	for _, p := range req.Parents {
		args = append(args, "-p", p)
	}
	out, err := r.Run(ctx, Cmd{Args: args, Stdin: []byte(req.Message), Env: req.Env, Named: true})
	if err != nil {
		r.Written.Anywhere("git commit-tree failed")
		return "", err
	}
	id := strings.TrimSpace(string(out))
	r.Written.Loose(id)
	return id, nil
}

package remote

import (
	"errors"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
)

// stale reports whether a push failed because a ref was no longer what
// ls-remote said: another push came in between. git says so in one of
// two places: the client, checking the lease against what the remote
// advertised ("stale info"), or the remote itself, whose compare-and-swap
// under the ref's lock came second ("cannot lock ref ...: is at X but
// expected Y").
func stale(err error) bool {
	var ge *git.Error
	return errors.As(err, &ge) && (strings.Contains(ge.Stderr, "stale info") ||
		strings.Contains(ge.Stderr, "cannot lock ref") && strings.Contains(ge.Stderr, "but expected"))
}

// reachFailed is a remote that could not be listed or fetched from.
func reachFailed(err error, remote string) error {
	return fault.Wrap(err, fault.FailedGit, "cannot reach %s", remote).
		WithHint("check the remote's name or URL ('git remote -v') and that 'git ls-remote " + fault.ShellQuote(remote) + "' works")
}

// secretsFound is a push refused because what it would publish holds
// secrets neither withheld nor allowed; its data lists the findings (the
// CLI prints them), and the hints give both ways on with the paths.
func secretsFound(sc *Screen, remote string) error {
	var withhold, allow strings.Builder
	for _, p := range sc.Blocking {
		withhold.WriteString(" --withhold " + fault.ShellQuote(p))
		allow.WriteString(" --allow-secret " + fault.ShellQuote(p))
	}
	n := len(sc.Blocking)
	return fault.New(fault.ConflictSecrets, "the push would publish secrets found in %d %s: %s", n, fault.Plural(n, "file", "files"), fault.QuoteList(sc.Blocking, 5)).
		WithData(SecretsData{Secrets: sc.Secrets}).
		WithHint("leave them out of what is pushed: git checkpoint push "+fault.ShellQuote(remote)+withhold.String(),
			"or publish them, to everyone who can read "+remote+": git checkpoint push "+fault.ShellQuote(remote)+allow.String())
}

// SecretsData is the data of a conflict.secrets error.
type SecretsData struct {
	Secrets []Secret `json:"secrets"`
}

// pushFailed is a push the remote refused or that did not finish.
func pushFailed(err error, remote string) error {
	return fault.Wrap(err, fault.FailedGit, "the push to %s failed", remote).
		WithHint("the remote takes a push whole or not at all: run 'git checkpoint push' again, it starts from what the remote has")
}

package agents

import (
	"fmt"

	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// aiderEvent is git's post-commit hook. aider commits every edit with
// --no-verify, which skips pre-commit and commit-msg but not post-commit,
// so each of its edits ends with one.
func aiderEvent(args []string) (*Event, error) {
	if len(args) > 0 && args[0] != "post-commit" {
		return nil, fmt.Errorf("%w %q (aider's hook is post-commit)", ErrUnknown, args[0])
	}
	return &Event{Agent: Aider, Name: "post-commit", Reason: store.ReasonCommit}, nil
}

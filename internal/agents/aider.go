package agents

import (
	"fmt"

	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// Aider is aider.
const Aider = "aider"

// aider has no hooks of its own: its hook is git's post-commit
// (githook.go), so it has no user scope, and its event comes as the
// hook's name in the arguments (git runs post-commit with the terminal as
// stdin).
var aider = Agent{
	Name:      Aider,
	Scopes:    []string{ScopeLocal, ScopeProject},
	onArgs:    func([]string) bool { return true },
	argsEvent: aiderEvent,
	configs:   []config{postCommit{}},
}

// aiderEvent is git's post-commit hook. aider commits every edit with
// --no-verify, which skips pre-commit and commit-msg but not post-commit,
// so each of its edits ends with one.
func aiderEvent(args []string) (*Event, error) {
	if len(args) > 0 && args[0] != "post-commit" {
		return nil, fmt.Errorf("%w %q (aider's hook is post-commit)", ErrUnknown, args[0])
	}
	return &Event{Agent: Aider, Name: "post-commit", Reason: store.ReasonCommit}, nil
}

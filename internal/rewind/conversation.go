package rewind

import (
	"fmt"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/agents"
	"github.com/git-checkpoint/git-checkpoint/internal/turns"
)

// The conversation layer (DESIGN section 8) is best effort: nothing here
// can fail a rewind.

// Resume is how to continue the agent's conversation as it was at the
// target, or nil.
func (pr *Prepared) Resume() *agents.Resume {
	if pr.Reverse != nil {
		return nil // no conversation was where the tree goes
	}
	return agents.ResumeAt(pr.Journal, pr.Target)
}

// leaveNote tells the model of the next prompt in this tree that its files
// were rewound, when an agent that can take such a note works here.
func (r *Rewinder) leaveNote(pr *Prepared) {
	if !pr.Journal.AnyAgent(agents.TakesNotes) {
		return
	}
	what := "checkpoint " + pr.Target.ID
	if turns.IsStart(pr.Target) && pr.Target.Turn != "" {
		what += ", the start of turn " + pr.Target.Turn
	}
	if rv := pr.Reverse; rv != nil {
		what = "their state with the changes of " + strings.TrimPrefix(rv.Arg(), "--") + " taken out"
	}
	text := fmt.Sprintf("git-checkpoint: the files of this working tree were rewound to %s "+
		"(only the files: this conversation was not). Files you read or changed earlier in this "+
		"conversation may now differ from what you remember: read them again before relying on them.", what)
	agents.WriteNote(r.Store.Dir, text)
}

package cli

import (
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/restore"
	"github.com/git-checkpoint/git-checkpoint/internal/rewind"
)

// checkReverseFlags refuses what --only and --session cannot mean: they
// compute their own target from the tree now (no ID), change files only
// (no HEAD move), and write this tree (no fork); and they are two ways
// of saying what to reverse, of which one is enough.
func (c *rewindCLI) checkReverseFlags() error {
	flag := "--only"
	if c.Only == "" {
		flag = "--session"
	}
	bad := func(msg string, hint string) error {
		return fault.New(fault.InvalidUsage, "%s %s", flag, msg).WithHint(hint)
	}
	switch {
	case c.Only != "" && c.Session != "":
		return bad("takes no --session", "reverse one turn with --only t<n>, or every turn of a session with --session S")
	case c.ID != "":
		return bad("takes no checkpoint id", "'git rewind "+c.ID+"' goes back to "+c.ID+"; '"+flag+"' reverses changes and keeps the rest, with no id")
	case c.Undo:
		return bad("takes no --undo", "'git rewind --undo' undoes the last rewind, a reversal included")
	case c.ResetHead:
		return bad("takes no --reset-head", "a reversal changes files only; move HEAD with 'git reset' or with 'git rewind ID --reset-head'")
	case c.Worktree != "":
		return bad("takes no --worktree", "a reversal keeps the later changes of this tree; fork a checkpoint with 'git rewind ID --worktree PATH'")
	case c.Plan != "" && !restore.IsPlanID(c.Plan):
		return fault.New(fault.InvalidPlan, "%s is not a plan id", fault.Quote(c.Plan)).
			WithHint("plan ids look like p1- and 16 hex digits; 'git rewind " + flag + " ... --dry-run' prints one")
	}
	return nil
}

// reverseTitle is the first line of a reversal's plan (or of what it
// did): what is reversed, and the stretches, newest first.
func reverseTitle(rv *rewind.Reversal, name, plan string, done bool) string {
	var steps []string
	for _, st := range rv.Steps {
		s := st.From + ".." + st.To
		if st.Turn != "" {
			s = st.Turn + " " + s
		}
		steps = append(steps, s)
	}
	what := name
	if rv.Session != "" {
		what = "session " + name
	}
	if done {
		return "reversed " + what + " (" + strings.Join(steps, ", ") + ")"
	}
	return "reverse " + what + " (" + strings.Join(steps, ", ") + "), keeping what changed since; plan " + plan
}

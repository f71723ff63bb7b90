package cli

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/picker"
	"github.com/git-checkpoint/git-checkpoint/internal/rewind"
)

// pick runs the picker of -i and returns the turn chosen: the rewind then
// goes on as `git rewind ID` would, with its plan and confirmation. The
// tree is scanned once, under the lock; the previews are planned against
// that scan without it, since a person takes their time over a list.
func (c *rewindCLI) pick(ctx context.Context, s *session, rw *rewind.Rewinder) (string, error) {
	if err := c.checkPick(); err != nil {
		return "", err
	}
	j, _, err := s.Journal(ctx)
	if err != nil {
		return "", err
	}
	entries, err := picker.Entries(ctx, s.Git, j, func(t time.Time) string { return age(s.sys.Now(), t) })
	if err != nil {
		return "", err
	}
	// No turns is said first, terminal or not: there is nothing to pick.
	if len(entries) == 0 {
		return "", fault.New(fault.NotFoundCheckpoint, "there are no turns to pick from").
			WithHint("turns are recorded by the agents' hooks ('git checkpoint install AGENT') and by 'git checkpoint run'",
				"'git checkpoint list' shows the checkpoints, which 'git rewind ID' takes too")
	}
	in, _ := s.sys.Stdin.(*os.File)
	out, _ := s.sys.Stderr.(*os.File)
	if s.g.JSON || !isTerminal(in) || !isTerminal(out) {
		return "", fault.New(fault.InvalidUsage, "-i needs a terminal to pick the turn on").
			WithHint("name the turn instead: 'git rewind tN' ('git checkpoint log' lists the turns and their prompts)")
	}
	paths, err := s.Rels(c.Paths)
	if err != nil {
		return "", err
	}
	stop := s.progress("reading the working tree")
	base, err := rw.Plan(ctx, rewind.Request{ID: "@", DryRun: true, Force: c.Force, Paths: paths, Outside: c.Outside})
	stop()
	if err != nil {
		return "", err
	}
	chosen, err := picker.Run(ctx, in, out, picker.Model{Entries: entries}, func(ctx context.Context, id string) picker.Preview {
		pr, err := rw.Retarget(ctx, base, id)
		return preview(pr, err, c.Yes)
	})
	if err != nil {
		return "", err
	}
	if chosen == "" {
		return "", fault.New(fault.InvalidAborted, "rewind aborted; nothing was changed")
	}
	return chosen, nil
}

// preview is what the picker shows of a prepared dry run, or of why there
// is none. yes is --yes, with which a person's edits refuse the rewind
// instead of asking.
func preview(pr *rewind.Prepared, err error, yes bool) picker.Preview {
	if err != nil {
		fe := fault.As(err)
		return picker.Preview{Error: append([]string{fe.Message}, fe.Hints...)}
	}
	p := picker.Preview{Left: len(pr.Plan.Left)}
	for _, f := range pr.Plan.Files {
		p.Files = append(p.Files, picker.File{Change: f.Change, Class: f.Class, Path: f.Path})
	}
	if pr.OutsideEdits() != nil {
		n := len(rewind.Outside(pr.Plan))
		then := "choosing this turn asks what to do with " + fault.Plural(n, "it", "them")
		if yes {
			then = "with --yes, choosing this turn is refused"
		}
		p.Note = append(p.Note, fmt.Sprintf("%d %s changed outside agent turns: %s", n, fault.Plural(n, "path", "paths"), then))
	}
	if fe := pr.Refused; fe != nil {
		p.Note = append(p.Note, "note: applying it now is refused: "+fe.Message)
	}
	return p
}

// checkPick refuses what -i means nothing with: it picks the target, so
// it takes no id, and an undo or a fork has its own.
func (c *rewindCLI) checkPick() error {
	if c.ID != "" || c.Undo || c.Worktree != "" || c.Plan != "" || c.Only != "" || c.Session != "" {
		return fault.New(fault.InvalidUsage, "-i picks the turn itself: it takes no checkpoint id, --undo, --worktree, --plan, --only or --session").
			WithHint("'git rewind -i' lists the turns; 'git rewind ID' goes to one you name")
	}
	return nil
}

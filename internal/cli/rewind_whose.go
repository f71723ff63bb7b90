package cli

import (
	"bufio"
	"context"
	"fmt"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/restore"
	"github.com/git-checkpoint/git-checkpoint/internal/rewind"
)

// chooseOutside asks a person on a terminal what to do with the outside
// paths of the plan just shown: keep them, overwrite them, or abort. It
// returns the plan of their choice, made from the same scan as the plan
// shown, so that its id can be checked against the plan applied later.
func (c *rewindCLI) chooseOutside(ctx context.Context, s *session, rw *rewind.Rewinder, pr *rewind.Prepared) (*restore.Plan, error) {
	plans := map[string]*restore.Plan{}
	for _, choice := range []string{"keep", "overwrite"} {
		p, err := rw.Replan(ctx, pr, choice)
		if err != nil {
			return nil, err
		}
		plans[choice] = p
	}
	s.printPlan(ctx, rw, pr, true, nil)
	n := len(rewind.Outside(pr.Plan))
	fmt.Fprintf(s.sys.Stderr, "%d %s changed outside agent turns (class outside).\n", n, fault.Plural(n, "path was", "paths were"))
	fmt.Fprintf(s.sys.Stderr, "Keep them as they are, overwrite them too, or abort? [k/o/A] ")
	line, _ := bufio.NewReader(s.sys.Stdin).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "k", "keep":
		return plans["keep"], nil
	case "o", "overwrite":
		return plans["overwrite"], nil
	}
	return nil, fault.New(fault.InvalidAborted, "rewind aborted; nothing was changed")
}

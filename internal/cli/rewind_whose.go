package cli

import (
	"bufio"
	"context"
	"fmt"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/restore"
	"github.com/git-checkpoint/git-checkpoint/internal/turns"
)

// outsidePaths lists the plan's paths that changed outside agent turns.
func outsidePaths(p *restore.Plan) []string {
	var out []string
	for _, f := range p.Files {
		if f.Class == turns.ClassOutside {
			out = append(out, f.Path)
		}
	}
	return out
}

// outsideEdits is the refusal of --outside=refuse (DESIGN section 6.3):
// a person's (or another agent's) work is never overwritten unasked.
func outsideEdits(id string, paths []string) error {
	shown := make([]string, 0, 10)
	for _, p := range paths[:min(len(paths), 10)] {
		shown = append(shown, fault.Quote(p))
	}
	list := strings.Join(shown, ", ")
	if len(paths) > len(shown) {
		list += fmt.Sprintf(" and %d more", len(paths)-len(shown))
	}
	return fault.New("conflict.outside_edits", "%d %s changed outside agent turns: %s",
		len(paths), plural(len(paths), "path", "paths"), list).
		WithHint("keep them as they are: git rewind "+id+" --outside=keep",
			"or restore them too (the safety checkpoint keeps their content): git rewind "+id+" --outside=overwrite").
		WithData(map[string]any{"paths": paths})
}

// chooseOutside asks a person on a terminal what to do with the outside
// paths of the plan just shown: keep them, overwrite them, or abort. It
// returns the plan of their choice, computed before the lock is released
// (unlock) so that it can be checked against the plan applied later.
func (c *rewindCLI) chooseOutside(ctx context.Context, s *session, pr *prepared, opts restore.Options, unlock func()) (*restore.Plan, error) {
	plans := map[string]*restore.Plan{}
	for _, choice := range []string{"keep", "overwrite"} {
		o := opts
		o.Outside = choice
		p, err := pr.compute(ctx, s, o)
		if err != nil {
			unlock()
			return nil, err
		}
		plans[choice] = p
	}
	unlock()
	s.printPlan(ctx, pr, true, nil)
	n := len(outsidePaths(pr.plan))
	fmt.Fprintf(s.sys.Stderr, "%d %s changed outside agent turns (class outside).\n", n, plural(n, "path was", "paths were"))
	fmt.Fprintf(s.sys.Stderr, "Keep them as they are, overwrite them too, or abort? [k/o/A] ")
	line, _ := bufio.NewReader(s.sys.Stdin).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "k", "keep":
		return plans["keep"], nil
	case "o", "overwrite":
		return plans["overwrite"], nil
	}
	return nil, fault.New("invalid.aborted", "rewind aborted; nothing was changed")
}

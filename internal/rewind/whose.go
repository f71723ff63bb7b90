package rewind

import (
	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/restore"
	"github.com/git-checkpoint/git-checkpoint/internal/turns"
)

// Outside lists the plan's paths that changed outside agent turns.
func Outside(p *restore.Plan) []string {
	var out []string
	for _, f := range p.Files {
		if f.Class == turns.ClassOutside {
			out = append(out, f.Path)
		}
	}
	return out
}

// OutsideEdits is the refusal of --outside=refuse (DESIGN section 6.3)
// when the plan would change paths changed outside agent turns, or nil: a
// person's (or another agent's) work is never overwritten unasked. A dry
// run shows it with the plan (Refuse); on a terminal the person may
// choose instead (Replan with keep or overwrite).
func (pr *Prepared) OutsideEdits() error {
	if pr.req.Outside != "refuse" {
		return nil
	}
	paths := Outside(pr.Plan)
	if len(paths) == 0 {
		return nil
	}
	id := pr.TargetArg()
	list := fault.QuoteList(paths, 10)
	return fault.New(fault.ConflictOutsideEdits, "%d %s changed outside agent turns: %s",
		len(paths), fault.Plural(len(paths), "path", "paths"), list).
		WithHint("keep them as they are: git rewind "+id+" --outside=keep",
			"or restore them too (the safety checkpoint keeps their content): git rewind "+id+" --outside=overwrite").
		WithData(map[string]any{"paths": paths})
}

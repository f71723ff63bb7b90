package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/restore"
	"github.com/git-checkpoint/git-checkpoint/internal/rewind"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
	"github.com/git-checkpoint/git-checkpoint/internal/turns"
)

// printPlan prints the plan before a rewind (dry) or what was done after
// it, as text or as the JSON document of DESIGN section 3.
func (s *session) printPlan(ctx context.Context, rw *rewind.Rewinder, pr *rewind.Prepared, dry bool, done *rewind.Applied) error {
	res := rw.Document(ctx, pr, dry, done)
	if s.out.json {
		return s.out.JSON(res)
	}
	p, head := pr.Plan, res.Head
	o := s.out
	if pr.Nothing() && done == nil {
		if len(p.Left) == 0 && pr.Reverse != nil {
			o.Printf("nothing to reverse: the working tree holds none of the changes of %s\n", pr.Target.ID)
		} else if len(p.Left) == 0 {
			o.Printf("the working tree already matches %s: nothing to do\n", pr.Target.ID)
		} else {
			o.Printf("nothing to do: every path that differs from %s is left as it is\n", pr.Target.ID)
		}
		s.printLeft(p)
		return nil
	}
	if rv := pr.Reverse; rv != nil {
		o.Printf("%s\n", reverseTitle(rv, o.Paint("bold", pr.Target.ID), p.ID, done != nil))
	} else if done == nil {
		o.Printf("rewind to %s (%s, %s) plan %s\n", o.Paint("bold", pr.Target.ID), pr.Target.Reason, age(s.sys.Now(), pr.Target.At), p.ID)
	} else {
		o.Printf("rewound to %s\n", o.Paint("bold", pr.Target.ID))
	}
	if pr.Target.Partial {
		o.Printf("note: %s is a partial checkpoint: only the paths named when it was taken were brought up to date, every other path is as the checkpoint before it had it\n", pr.Target.ID)
	}
	colors := map[string]string{restore.Create: "green", restore.Modify: "yellow", restore.Delete: "red", restore.Type: "cyan"}
	counts := map[string]int{}
	classes := attributed(p)
	for _, f := range p.Files {
		counts[f.Change]++
		if classes {
			o.Printf("  %s %-12s %s\n", o.Paint(colors[f.Change], padRight(f.Change, 6)), f.Class, fault.Quote(f.Path))
		} else {
			o.Printf("  %s %s\n", o.Paint(colors[f.Change], padRight(f.Change, 6)), fault.Quote(f.Path))
		}
	}
	var parts []string
	for _, ch := range []string{restore.Modify, restore.Create, restore.Delete, restore.Type} {
		if counts[ch] > 0 {
			parts = append(parts, strconv.Itoa(counts[ch])+" "+ch)
		}
	}
	if len(p.Files) == 0 {
		o.Printf("no file changes\n") // only HEAD moves
	} else {
		o.Printf("%d %s: %s\n", len(p.Files), fault.Plural(len(p.Files), "path", "paths"), strings.Join(parts, ", "))
	}
	if !classes && len(p.Files) > 0 {
		o.Printf("%s\n", unattributedNote(pr))
	}
	s.printLeft(p)
	if pr.Move != nil {
		o.Printf("HEAD: %s\n", headMoveNote(pr.Move, pr.Target.ID, done != nil))
	} else if head.Moves || (head.From != head.To) {
		switch {
		case head.To == "":
			o.Printf("note: HEAD was unborn at %s; the restored files will show as changes against HEAD\n", pr.Target.ID)
		case head.Commits > 0:
			o.Printf("note: HEAD has %d %s since %s; the restored files will show as uncommitted changes against it\n",
				head.Commits, fault.Plural(head.Commits, "commit", "commits"), pr.Target.ID)
		default:
			o.Printf("note: HEAD moved since %s; the restored files will show as uncommitted changes against it\n", pr.Target.ID)
		}
	}
	if r := pr.Resume(); r != nil {
		o.Printf("the conversation at %s continues, as a copy, with: %s\n", pr.Target.ID, r.Command)
	}
	if done != nil {
		if !done.Exact {
			o.Printf("%s the tree does not match the checkpoint exactly; these paths differ from the plan"+
				" (changed during the rewind, or no longer ignored):\n", o.Paint("red", "warning:"))
			for i, p := range done.Unexpected {
				if i == 10 {
					o.Printf("  ... and %d more\n", len(done.Unexpected)-i)
					break
				}
				o.Printf("  %s\n", fault.Quote(p))
			}
		}
		o.Printf("safety checkpoint %s; undo with: git rewind --undo\n", done.Safety)
	} else {
		o.Printf("a safety checkpoint is taken first; undo with: git rewind --undo\n")
	}
	if fe := pr.Refused; fe != nil {
		o.Printf("%s applying this plan now is refused: %s\n", o.Paint("red", "note:"), fe.Message)
		for _, h := range fe.Hints {
			o.Printf("  %s\n", h)
		}
	}
	return nil
}

// attributed reports whether any path of the plan has a class: when none
// has, the class column would say "unattributed" on every line, and the
// text plan leaves it out for one line saying why (unattributedNote).
// --json keeps "class" on every file: it is the document's contract.
func attributed(p *restore.Plan) bool {
	for _, f := range p.Files {
		if f.Class != turns.ClassUnattributed {
			return true
		}
	}
	return false
}

// unattributedNote says why no path of the plan has a class: with manual
// checkpoints only, that no turn is recorded and what records them;
// otherwise, where the classes are explained.
func unattributedNote(pr *rewind.Prepared) string {
	if pr.Turnless() {
		return "note: no agent turn is recorded here, so the plan cannot say whose change each path is: 'git checkpoint install AGENT' adds the hooks that record turns"
	}
	return "note: the recorded agent turns do not say whose change any of these paths is: see WHOSE CHANGE in git-rewind(1)"
}

func (s *session) printLeft(p *restore.Plan) {
	if len(p.Left) == 0 {
		return
	}
	s.out.Printf("left as they are:\n")
	for _, l := range p.Left {
		s.out.Printf("  %-18s %s\n", l.Reason, fault.Quote(l.Path))
		if l.Kept != "" {
			s.out.Printf("  %-18s   what was written there is kept at %s\n", "", l.Kept)
		}
	}
	for _, l := range p.Left {
		if commit := s.goneNested(p.Target, l); commit != "" {
			s.out.Printf("note: %s was a nested repository at %s: a checkpoint holds only its commit, so a rewind cannot bring it back; clone it there again and check that commit out\n",
				fault.Quote(l.Path), fault.Short(commit))
		}
	}
}

// goneNested returns the commit of a nested repository the target holds
// at l's path (a gitlink) when nothing is there now: deleted, it is left
// as "gitlink" like one that is there, but unlike it, it stays missing
// after the rewind, which the person must be told. "" otherwise.
func (s *session) goneNested(target *store.Record, l restore.Left) string {
	if l.Reason != restore.LeftGitlink || target == nil {
		return ""
	}
	for _, sm := range target.Submodules {
		if sm.Path == l.Path {
			if _, err := os.Lstat(filepath.Join(s.Repo.Top, filepath.FromSlash(l.Path))); os.IsNotExist(err) {
				return sm.Commit
			}
		}
	}
	return ""
}

func padRight(s string, n int) string {
	if len(s) >= n {
		return s
	}
	return s + strings.Repeat(" ", n-len(s))
}

// headMoveNote describes a head move for the plan.
func headMoveNote(m *rewind.HeadMove, target string, done bool) string {
	name := strings.TrimPrefix(m.Ref, "refs/heads/")
	verb := "moves"
	if done {
		verb = "moved"
	}
	if m.Undo {
		return fmt.Sprintf("%s %s back to %s and the index back to what it held before the rewind", name, verb, fault.Short(m.To))
	}
	n := len(m.Dropped)
	return fmt.Sprintf("%s %s back %d %s to %s (%s's HEAD) and the index is reset to it; the safety checkpoint keeps the dropped %s",
		name, verb, n, fault.Plural(n, "commit", "commits"), fault.Short(m.To), target, fault.Plural(n, "commit", "commits"))
}

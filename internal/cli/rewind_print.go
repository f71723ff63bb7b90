package cli

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/restore"
)

type appliedInfo struct {
	safety     string
	exact      bool
	unexpected []string
}

// printPlan prints the plan before a rewind (dry) or what was done after
// it, as text or as the JSON document of DESIGN section 3.
func (s *session) printPlan(ctx context.Context, pr *prepared, dry bool, done *appliedInfo) error {
	res, err := s.planDoc(ctx, pr, dry, done)
	if err != nil {
		return err
	}
	if s.out.json {
		return s.out.JSON(res)
	}
	p, head := pr.plan, res.Head
	o := s.out
	if len(p.Files) == 0 && done == nil {
		if len(p.Left) == 0 {
			o.Printf("the working tree already matches %s: nothing to do\n", pr.target.ID)
		} else {
			o.Printf("nothing to do: every path that differs from %s is left as it is\n", pr.target.ID)
		}
		s.printLeft(p)
		return nil
	}
	if done == nil {
		o.Printf("rewind to %s (%s, %s) plan %s\n", o.Paint("bold", pr.target.ID), pr.target.Reason, age(s.sys.Now(), pr.target.At), p.ID)
	} else {
		o.Printf("rewound to %s\n", o.Paint("bold", pr.target.ID))
	}
	if pr.target.Partial {
		o.Printf("note: %s is a partial checkpoint: only the paths named when it was taken were brought up to date, every other path is as the checkpoint before it had it\n", pr.target.ID)
	}
	colors := map[string]string{restore.Create: "green", restore.Modify: "yellow", restore.Delete: "red", restore.Type: "cyan"}
	counts := map[string]int{}
	for _, f := range p.Files {
		counts[f.Change]++
		o.Printf("  %s %-12s %s\n", o.Paint(colors[f.Change], padRight(f.Change, 6)), f.Class, fault.Quote(f.Path))
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
		o.Printf("%d %s: %s\n", len(p.Files), plural(len(p.Files), "path", "paths"), strings.Join(parts, ", "))
	}
	s.printLeft(p)
	if pr.move != nil {
		o.Printf("HEAD: %s\n", headMoveNote(pr.move, pr.target.ID, done != nil))
	} else if head.Moves || (head.From != head.To) {
		switch {
		case head.To == "":
			o.Printf("note: HEAD was unborn at %s; the restored files will show as changes against HEAD\n", pr.target.ID)
		case head.Commits > 0:
			o.Printf("note: HEAD has %d %s since %s; the restored files will show as uncommitted changes against it\n",
				head.Commits, plural(head.Commits, "commit", "commits"), pr.target.ID)
		default:
			o.Printf("note: HEAD moved since %s; the restored files will show as uncommitted changes against it\n", pr.target.ID)
		}
	}
	if r := pr.resume(); r != nil {
		o.Printf("the conversation at %s continues, as a copy, with: %s\n", pr.target.ID, r.Command)
	}
	if done != nil {
		if !done.exact {
			o.Printf("%s the tree does not match the checkpoint exactly; these paths differ from the plan"+
				" (changed during the rewind, or no longer ignored):\n", o.Paint("red", "warning:"))
			for i, p := range done.unexpected {
				if i == 10 {
					o.Printf("  ... and %d more\n", len(done.unexpected)-i)
					break
				}
				o.Printf("  %s\n", fault.Quote(p))
			}
		}
		o.Printf("safety checkpoint %s; undo with: git rewind --undo\n", done.safety)
	} else {
		o.Printf("a safety checkpoint is taken first; undo with: git rewind --undo\n")
	}
	if fe := pr.refused; fe != nil {
		o.Printf("%s applying this plan now is refused: %s\n", o.Paint("red", "note:"), fe.Message)
		for _, h := range fe.Hints {
			o.Printf("  %s\n", h)
		}
	}
	return nil
}

// planDoc is the plan, or what was done, as the JSON document of DESIGN
// section 3.
func (s *session) planDoc(ctx context.Context, pr *prepared, dry bool, done *appliedInfo) (rewindResult, error) {
	head, err := s.headNote(ctx, pr)
	if err != nil {
		return rewindResult{}, err
	}
	p := pr.plan
	res := rewindResult{Checkpoint: pr.target.ID, DryRun: dry, Plan: p.ID, Files: p.Files, Left: p.Left, Head: head,
		Resume: pr.resume(), Partial: pr.target.Partial}
	if res.Files == nil {
		res.Files = []restore.File{}
	}
	if res.Left == nil {
		res.Left = []restore.Left{}
	}
	if done != nil {
		res.Safety, res.Exact, res.Unexpected = done.safety, &done.exact, done.unexpected
	}
	if fe := pr.refused; fe != nil {
		res.Refused = &refusal{Code: fe.Code, Message: fe.Message, Data: fe.Data}
	}
	return res, nil
}

// leaveUnwritten moves the paths the rewind found in the way while writing
// from the plan's files to its left list, so that what is printed is what
// happened.
func leaveUnwritten(p *restore.Plan, left []restore.Left) {
	if len(left) == 0 {
		return
	}
	skip := map[string]bool{}
	for _, l := range left {
		skip[l.Path] = true
	}
	files := p.Files[:0:0]
	for _, f := range p.Files {
		if !skip[f.Path] {
			files = append(files, f)
		}
	}
	p.Files = files
	p.Left = append(p.Left, left...)
}

func (s *session) printLeft(p *restore.Plan) {
	if len(p.Left) == 0 {
		return
	}
	s.out.Printf("left as they are:\n")
	for _, l := range p.Left {
		s.out.Printf("  %-18s %s\n", l.Reason, fault.Quote(l.Path))
	}
}

// headNote says whether HEAD moved since the target was taken, and by how
// many commits.
func (s *session) headNote(ctx context.Context, pr *prepared) (headNote, error) {
	n := headNote{From: s.repo.Head, To: pr.target.Head}
	if m := pr.move; m != nil {
		return headNote{Moves: true, From: m.from, To: m.to, Commits: len(m.dropped)}, nil
	}
	if n.From == n.To || n.From == "" || n.To == "" {
		return n, nil
	}
	out, err := s.git.Run(ctx, git.Cmd{Args: []string{"rev-list", "--count", n.To + ".." + n.From}})
	if err != nil {
		return n, nil // the old HEAD may be gone; the note is best effort
	}
	n.Commits, _ = strconv.Atoi(strings.TrimSpace(string(out)))
	return n, nil
}

// changedPaths lists the paths that differ between two trees.
func (s *session) changedPaths(ctx context.Context, a, b string) ([]string, error) {
	out, err := s.git.Run(ctx, git.Cmd{Args: []string{"diff-tree", "-r", "-z", "--no-renames", "--name-only", a, b}})
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, p := range strings.Split(string(out), "\x00") {
		if p != "" {
			paths = append(paths, p)
		}
	}
	return paths, nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func padRight(s string, n int) string {
	if len(s) >= n {
		return s
	}
	return s + strings.Repeat(" ", n-len(s))
}

func mkdirAll(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fault.Wrap(err, "failed.io", "cannot create %s", dir)
	}
	return nil
}

// failpoint returns the test-only failure injector named by
// GIT_CHECKPOINT_FAILPOINT, a comma-separated list of STEP or STEP:ACTION.
// ACTION is "error" (the default: the step fails as an I/O error would),
// "kill" (the process kills itself with SIGKILL, as a crash or power loss
// would) or "pause=FILE" (it creates FILE and waits until FILE is removed,
// at most a minute, so that a test can change the tree at exactly that
// point; a file rather than SIGSTOP, which the kernel's job control can
// undo behind the test's back).
//
// The steps of a rewind, in order: safety (the safety checkpoint exists,
// nothing else happened), started (rewind_started is journaled), staged,
// delete-N, deleted, rename-N, renamed (see restore.Applier), head and
// index (--reset-head moved the branch, then the index), captured (the
// result is checkpointed and verified) and ended (rewind_ended is
// journaled). Putting a tree back after a failure goes through the same
// file steps with an "undo-" prefix. A capture has one step: indexed (the
// private index holds the scan's changes; see capture.Capturer.Fail).
func failpoint(spec string) func(string) error {
	if spec == "" {
		return nil
	}
	actions := map[string]string{}
	for _, item := range strings.Split(spec, ",") {
		step, action, _ := strings.Cut(strings.TrimSpace(item), ":")
		actions[step] = action
	}
	return func(at string) error {
		action, ok := actions[at]
		if !ok {
			return nil
		}
		switch {
		case action == "kill":
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		case strings.HasPrefix(action, "pause="):
			file := strings.TrimPrefix(action, "pause=")
			if err := os.WriteFile(file, nil, 0o644); err != nil {
				return err
			}
			for i := 0; i < 60000; i++ {
				if _, err := os.Lstat(file); err != nil {
					return nil
				}
				time.Sleep(time.Millisecond)
			}
			return nil
		}
		return errors.New("injected failure at " + at)
	}
}

// rawDiffers lists the planned paths not kept raw alike in the
// tree after the rewind (overlay afterRaw) and in the target.
func rawDiffers(ctx context.Context, s *session, pr *prepared, afterRaw string) ([]string, error) {
	entries := func(tree string) (map[string]string, error) {
		m := map[string]string{}
		if tree == "" {
			return m, nil
		}
		out, err := s.git.Run(ctx, git.Cmd{Args: []string{"ls-tree", "-r", "-z", tree}})
		if err != nil {
			return nil, err
		}
		for _, item := range strings.Split(string(out), "\x00") {
			if meta, path, ok := strings.Cut(item, "\t"); ok {
				m[path] = meta
			}
		}
		return m, nil
	}
	got, err := entries(afterRaw)
	if err != nil {
		return nil, err
	}
	want, err := entries(pr.target.Raw)
	if err != nil {
		return nil, err
	}
	var differ []string
	for _, f := range pr.plan.Files {
		if got[f.Path] != want[f.Path] {
			differ = append(differ, f.Path)
		}
	}
	return differ, nil
}

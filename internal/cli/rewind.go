package cli

import (
	"bufio"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/agents"
	"github.com/git-checkpoint/git-checkpoint/internal/capture"
	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/restore"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
	"github.com/git-checkpoint/git-checkpoint/internal/turns"
)

const rewindHelp = `Restore the working tree (or only PATHs) to a checkpoint, exactly: contents,
modes, symlinks and deletions. Shows the plan first; takes a safety checkpoint
before writing anything, so every rewind can be undone with --undo. The index,
HEAD and branches are not touched.`

// rewindCLI is the grammar of git-rewind.
type rewindCLI struct {
	Globals
	ID      string   `arg:"" optional:"" help:"The checkpoint: k<n>, t<n>, @ or a commit (default: the latest turn start, else the newest checkpoint that differs from the tree)."`
	DryRun  bool     `short:"n" name:"dry-run" help:"Print the plan and its id; change nothing."`
	Yes     bool     `short:"y" help:"Apply without asking."`
	Plan    string   `placeholder:"P" help:"Apply only if the plan computed now is P (the id a dry run printed)."`
	Outside string   `enum:"refuse,keep,overwrite" default:"refuse" help:"Paths a person changed outside agent turns: refuse, keep or overwrite."`
	Undo    bool     `help:"Undo the last rewind: go back to its safety checkpoint."`
	Force   bool     `help:"Rewind even though an earlier rewind was interrupted."`
	Paths   []string `kong:"-"`

	ResetHead bool   `name:"reset-head" help:"Also move the branch (or detached HEAD) back to the checkpoint's HEAD and reset the index to it, when no commit it drops was pushed."`
	Worktree  string `name:"worktree" placeholder:"PATH" help:"Leave this tree alone: create a new linked worktree at PATH, on a new branch at the checkpoint's HEAD, holding the checkpoint's files."`
}

// Rewind runs git-rewind with args and returns its exit status.
func Rewind(args []string, sys *IO) int {
	var c rewindCLI
	args, c.Paths = splitDashDash(args)
	return run("git rewind", &c, &c.Globals, args, sys, rewindHelp)
}

// rewindResult is the JSON document of a rewind (DESIGN section 3).
type rewindResult struct {
	Checkpoint string         `json:"checkpoint"`
	DryRun     bool           `json:"dry_run"`
	Plan       string         `json:"plan"`
	Files      []restore.File `json:"files"`
	Left       []restore.Left `json:"left"`
	Head       headNote       `json:"head"`
	Safety     string         `json:"safety,omitempty"`
	Exact      *bool          `json:"exact,omitempty"`
	Unexpected []string       `json:"unexpected,omitempty"` // paths that made exact false
	Partial    bool           `json:"partial,omitempty"`    // the target is a partial checkpoint
	Resume     any            `json:"resume"`
	// Refused is, for a dry run, the error applying the plan now would
	// stop with (an outside edit, an operation in progress).
	Refused *refusal `json:"refused,omitempty"`
}

type refusal struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

type headNote struct {
	Moves   bool   `json:"moves"`
	From    string `json:"from"`
	To      string `json:"to"`
	Commits int    `json:"commits"`
}

// prepared is a plan and what it was computed from.
type prepared struct {
	j      *store.Journal
	snap   *capture.Snapshot
	target *store.Record
	plan   *restore.Plan
	// classify says whose change each path is (DESIGN section 6.3).
	classify restore.Classifier
	// interrupted is an earlier rewind that started and never ended.
	interrupted *store.Rewind
	// move is what happens to HEAD and the index (--reset-head, or the
	// --undo of a rewind that moved them); nil when they stay.
	move *headMove
	// made, for an undo, are the paths the undone rewind created.
	made map[string]bool
	// refused is the preflight conflict that would stop this plan from
	// being applied; only a dry run gets this far with one, and shows
	// the plan with it.
	refused *fault.Error
}

// refuse lets a dry run go on past a preflight conflict, which it records
// to show with the plan (a dry run exits 0 whenever it has a plan), and
// returns nil; any other error, or any error of a rewind that applies,
// comes back to stop it.
func (c *rewindCLI) refuse(pr *prepared, err error) error {
	if err == nil {
		return nil
	}
	if fe := fault.As(err); c.DryRun && fe.Class() == fault.Conflict {
		if pr.refused == nil {
			pr.refused = fe
		}
		return nil
	}
	return err
}

func (c *rewindCLI) Run(ctx context.Context, sys *IO, g *Globals) error {
	s, err := open(ctx, sys, g)
	if err != nil {
		return err
	}
	if c.Undo && c.ID != "" {
		return fault.New("invalid.usage", "--undo takes no checkpoint id").
			WithHint("'git rewind --undo' goes back to the safety checkpoint of the last rewind")
	}
	if err := c.checkFlags(); err != nil {
		return err
	}
	if c.Worktree != "" {
		return c.fork(ctx, s)
	}
	var opts restore.Options
	if opts.Paths, err = s.rels(c.Paths); err != nil {
		return err
	}
	opts.Outside = c.Outside
	opts.ResetHead = c.ResetHead

	unlock, err := s.lock(ctx)
	if err != nil {
		return err
	}
	// A killed rewind leaves its staged files behind; the lock says no
	// rewind of this tree is running now.
	restore.CleanStaging(s.store.Path("staging"))
	pr, err := c.prepare(ctx, s, opts)
	if err != nil {
		unlock()
		return err
	}
	if outside := outsidePaths(pr.plan); opts.Outside == "refuse" && len(outside) > 0 && c.DryRun {
		c.refuse(pr, outsideEdits(pr.target.ID, outside))
	} else if opts.Outside == "refuse" && len(outside) > 0 {
		if c.Yes || c.Plan != "" || !s.interactive() {
			unlock()
			if !s.out.json {
				s.printPlan(ctx, pr, true, nil)
			}
			return outsideEdits(pr.target.ID, outside)
		}
		// On a terminal the person decides, having seen the plan; the
		// plan of their choice is computed now and must be the one
		// applied under the lock again.
		choice, err := c.chooseOutside(ctx, s, pr, opts, unlock)
		if err != nil {
			return err
		}
		opts.Outside, c.Plan = choice.Options.Outside, choice.ID
		if unlock, err = s.lock(ctx); err != nil {
			return err
		}
		if pr, err = c.prepare(ctx, s, opts); err != nil {
			unlock()
			return err
		}
	}
	nothing := len(pr.plan.Files) == 0 && pr.move == nil
	if !c.DryRun && nothing && pr.interrupted != nil && c.Undo {
		// The interrupted rewind never changed a file (or its undo already
		// happened): the tree is back, so close it.
		end := *pr.interrupted
		exact := true
		end.Exact = &exact
		if err := s.store.Append(pr.j, store.Event{Type: store.EventRewindEnded, Rewind: &end}); err != nil {
			unlock()
			return err
		}
	}
	if c.DryRun || nothing {
		// Nothing to write, or nothing asked for: no safety checkpoint.
		unlock()
		return s.printPlan(ctx, pr, c.DryRun, nil)
	}
	if !c.Yes && c.Plan == "" {
		if !s.interactive() {
			unlock()
			// With --json the plan goes in the error's data: stdout
			// holds one document, and it is the error.
			var data any = map[string]string{"plan": pr.plan.ID}
			if s.out.json {
				if data, err = s.planDoc(ctx, pr, true, nil); err != nil {
					return err
				}
			} else if err := s.printPlan(ctx, pr, true, nil); err != nil {
				return err
			}
			return fault.New("invalid.confirmation_required", "not applying the plan without confirmation").
				WithHint("review it, then run 'git rewind " + pr.target.ID + " --plan " + pr.plan.ID + "' (applies only this plan) or add --yes").
				WithData(data)
		}
		// Never hold the lock while a person reads: agents' hooks would
		// wait on it. The plan is computed again under the lock and must
		// be the one shown.
		unlock()
		s.printPlan(ctx, pr, true, nil)
		if !s.confirm("Apply this plan?") {
			return fault.New("invalid.aborted", "rewind aborted; nothing was changed")
		}
		c.Plan = pr.plan.ID
		if unlock, err = s.lock(ctx); err != nil {
			return err
		}
		if pr, err = c.prepare(ctx, s, opts); err != nil {
			unlock()
			return err
		}
	}
	defer unlock()
	if c.Plan != "" && pr.plan.ID != c.Plan {
		return fault.New("conflict.rewind_stale", "the working tree changed since plan %s was made (it is now %s)", c.Plan, pr.plan.ID).
			WithHint("run 'git rewind " + pr.target.ID + " --dry-run' to see the new plan").
			WithData(map[string]string{"expected": c.Plan, "plan": pr.plan.ID})
	}
	return c.apply(ctx, s, pr)
}

// prepare resolves the target, runs the preflight checks in the design's
// order and computes the plan. The caller holds the lock.
func (c *rewindCLI) prepare(ctx context.Context, s *session, opts restore.Options) (*prepared, error) {
	j, refs, err := s.journal(ctx)
	if err != nil {
		return nil, err
	}
	pr := &prepared{j: j}
	started, ended := j.LastRewind()
	if started != nil && !ended {
		pr.interrupted = started
	}
	undone := started
	switch {
	case c.Undo:
		if started == nil {
			return nil, fault.New("not_found.nothing_to_undo", "there is no rewind to undo")
		}
		back := started.Safety
		if pr.interrupted != nil && started.Undo {
			// An interrupted undo is finished, not undone: its target is
			// the tree before the rewind it was undoing.
			back = started.Target
			undone = rewindWithSafety(j, started.Target)
		}
		if pr.target, err = resolve(j, refs, back); err != nil {
			return nil, err
		}
	case c.ID != "":
		if pr.target, err = resolve(j, refs, c.ID); err != nil {
			return nil, err
		}
	}
	if started != nil && !ended && !c.Undo && !c.Force {
		err := c.refuse(pr, fault.New("conflict.interrupted_rewind", "a rewind to %s was interrupted before it finished; the tree before it is safety checkpoint %s", started.Target, started.Safety).
			WithHint("undo it with 'git rewind --undo' (back to safety checkpoint "+started.Safety+"), or pass --force to rewind anyway").
			WithData(map[string]string{"target": started.Target, "safety": started.Safety}))
		if err != nil {
			return nil, err
		}
	}
	if op := s.repo.Operation(); op != "" {
		err := c.refuse(pr, fault.New("conflict.git_operation", "a %s is in progress", op).
			WithHint("finish or abort it first (git "+op+" --continue / --abort); a rewind now would mix its files with the "+op+"'s").
			WithData(map[string]string{"operation": op}))
		if err != nil {
			return nil, err
		}
	}
	switch {
	case c.ResetHead && pr.target != nil:
		pr.move, err = s.planHeadMove(ctx, pr.target)
	case c.Undo && undone != nil:
		pr.move, err = s.undoHeadMove(undone)
	}
	if err == nil && c.Undo && undone != nil {
		pr.made, err = s.madeBy(ctx, j, undone)
	}
	if err = c.refuse(pr, err); err != nil {
		return nil, err
	}
	if pr.snap, err = s.cap.Snapshot(ctx, j); err != nil {
		return nil, err
	}
	if pr.target == nil {
		if pr.target = defaultTarget(j, refs, pr.snap.Tree); pr.target == nil {
			if len(refs) == 0 {
				return nil, fault.New("not_found.checkpoint", "there are no checkpoints of this working tree yet").
					WithHint("take one with 'git checkpoint', or set up your agent's hooks with 'git checkpoint install AGENT'")
			}
			if to := rewoundTo(j); to <= j.MaxN() {
				// Right after a rewind only older checkpoints count, so
				// that a second bare rewind goes further back.
				return nil, fault.New("not_found.checkpoint", "no checkpoint before k%d, where the last rewind went, differs from the working tree", to).
					WithHint("name the checkpoint to go to ('git checkpoint list' shows them), or undo that rewind with 'git rewind --undo'")
			}
			return nil, fault.New("not_found.checkpoint", "no checkpoint differs from the working tree").
				WithHint("list them with 'git checkpoint list'")
		}
	}
	if c.ResetHead && pr.move == nil && s.repo.Head != pr.target.Head {
		// The target came from the default choice, after the snapshot.
		if pr.move, err = s.planHeadMove(ctx, pr.target); c.refuse(pr, err) != nil {
			return nil, err
		}
	}
	if pr.classify, err = turns.Classify(ctx, s.git, j, pr.target, pr.snap.Tree); err != nil {
		return nil, err
	}
	if pr.plan, err = pr.compute(ctx, s, opts); err != nil {
		return nil, err
	}
	if err := s.checkPaths(pr.plan, opts.Paths); err != nil {
		return nil, err
	}
	if pr.move != nil {
		if pr.move.index, err = s.saveIndex(ctx); err != nil {
			return nil, err
		}
	}
	return pr, nil
}

// compute makes the plan of pr with opts, raw bytes included: every plan
// a rewind shows or applies is made here, so that the plan a prompt chose
// and the one applied have the same id.
func (pr *prepared) compute(ctx context.Context, s *session, opts restore.Options) (*restore.Plan, error) {
	opts.Keep, opts.Made = s.keepHookConfig(ctx), pr.made
	p, err := restore.Compute(ctx, s.git, s.repo.Top, pr.snap.Tree, s.repo.Head, pr.snap.Skipped, pr.target, opts, pr.classify)
	if err != nil {
		return nil, err
	}
	if err := p.AddRaw(ctx, s.git, pr.snap.Raw); err != nil {
		return nil, err
	}
	return p, nil
}

// madeBy returns the paths the rewind rw created: not in its safety
// checkpoint's tree, in its own checkpoint's as its target has them, and
// not left because an ignored file sat there. A file that was ignored
// before (a rewound .gitignore made it visible, or it sat in the way, even
// with the target's very content) is none of them, and an undo never
// deletes it.
func (s *session) madeBy(ctx context.Context, j *store.Journal, rw *store.Rewind) (map[string]bool, error) {
	safety := j.ByID(rw.Safety)
	if safety == nil || rw.InTheWayMore {
		return nil, nil
	}
	var after *store.Record
	for _, r := range j.Checkpoints() {
		if r.N > safety.N && r.Reason == store.ReasonRewind {
			after = r
			break
		}
	}
	if after == nil {
		return nil, nil
	}
	out, err := s.git.Run(ctx, git.Cmd{Args: []string{"diff-tree", "-r", "-z", "--no-renames", "--diff-filter=A", "--name-only", safety.Tree, after.Tree}})
	if err != nil {
		return nil, err
	}
	made := map[string]bool{}
	args := []string{"--literal-pathspecs", "diff-tree", "-r", "-z", "--no-renames", "--name-only", rw.Commit, after.Tree, "--"}
	for _, p := range strings.Split(string(out), "\x00") {
		if p != "" {
			made[p] = true
			args = append(args, p)
		}
	}
	if len(made) == 0 {
		return nil, nil
	}
	if out, err = s.git.Run(ctx, git.Cmd{Args: args}); err != nil {
		return nil, err
	}
	for _, p := range strings.Split(string(out), "\x00") {
		delete(made, p) // not as the target has it
	}
	for _, p := range rw.InTheWay {
		delete(made, p) // an ignored file that was there, as the target has it
	}
	return made, nil
}

// maxInTheWay bounds the paths a rewind's record keeps in InTheWay.
const maxInTheWay = 1000

// checkPaths refuses a PATH that names nothing: neither the working tree
// nor the plan (which holds every path the checkpoint has and the tree
// lacks) has it or anything below it. "Already matches" would hide a typo.
func (s *session) checkPaths(plan *restore.Plan, paths []string) error {
	var missing []string
	planned := plan.Paths()
	for _, l := range plan.Left {
		planned = append(planned, l.Path)
	}
	for _, p := range paths {
		if p == "" {
			continue
		}
		if _, err := os.Lstat(filepath.Join(s.repo.Top, p)); err == nil {
			continue
		}
		named := slices.ContainsFunc(planned, func(f string) bool { return f == p || strings.HasPrefix(f, p+"/") })
		if !named {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		quoted := make([]string, len(missing))
		for i, p := range missing {
			quoted[i] = fault.Quote(p)
		}
		return fault.New("not_found.path", "%s: in neither %s nor the working tree", strings.Join(quoted, ", "), plan.Target.ID).
			WithHint("paths are relative to the current directory; 'git checkpoint show " + plan.Target.ID + "' and 'git ls-tree -r " + plan.Target.Commit[:12] + "' list what it holds").
			WithData(map[string][]string{"paths": missing})
	}
	return nil
}

// keepHookConfig leaves the agents' settings files in the tree that hold
// git-checkpoint's hooks now or in the checkpoint: writing one would
// switch the product off (a rewind to before the install) or back on
// (after an uninstall), which only install and uninstall do.
func (s *session) keepHookConfig(ctx context.Context) func(restore.File) string {
	settings := agents.TreeSettings()
	return func(f restore.File) string {
		if !slices.Contains(settings, f.Path) {
			return ""
		}
		if agents.HoldsHooksFile(filepath.Join(s.repo.Top, f.Path)) {
			return restore.LeftHookConfig
		}
		if f.Mode == "100644" || f.Mode == "100755" {
			objs, err := s.git.CatFile(ctx, []string{f.OID})
			if err != nil || len(objs) != 1 || objs[0].Missing || agents.HoldsHooks(objs[0].Body) {
				return restore.LeftHookConfig
			}
		}
		return ""
	}
}

// defaultTarget is the start of the latest turn whose tree differs from
// tree; without turns, the newest checkpoint that differs, passing over the
// ones rewinds take themselves (pre_rewind, rewind) and partial ones. A
// turn start counts whichever way its checkpoint was first made: a turn
// start scans the whole tree, so one that reuses a tool call's partial
// checkpoint found exactly that tree (passing over it undid two turns).
// Either way `git rewind` twice goes further back: right after a rewind,
// only checkpoints older than its target count. It never redoes (that is
// --undo).
func defaultTarget(j *store.Journal, refs map[int]string, tree string) *store.Record {
	before := rewoundTo(j)
	usable := func(c *store.Record) bool {
		return c.Tree != tree && refs[c.N] == c.Commit && c.N < before
	}
	for _, c := range turns.LatestStarts(j) {
		if usable(c) {
			return c
		}
	}
	cps := j.Checkpoints()
	for i := len(cps) - 1; i >= 0; i-- {
		c := cps[i]
		if usable(c) && !c.Partial && c.Reason != store.ReasonPreRewind && c.Reason != store.ReasonRewind {
			return c
		}
	}
	return nil
}

// rewoundTo returns the number of the checkpoint the last rewind went to,
// when nothing new was recorded since (no new checkpoint, no turn start),
// and otherwise a number above every checkpoint's. After --undo, or a
// rewind that failed, the tree is where it was: no limit either.
func rewoundTo(j *store.Journal) int {
	events := j.All()
	for i := len(events) - 1; i >= 0; i-- {
		ev := events[i]
		if c := ev.Checkpoint; c != nil && (!c.Reused || turns.IsStart(c)) {
			break
		}
		if ev.Type == store.EventRewindEnded && ev.Rewind != nil {
			if ev.Rewind.Undo || ev.Rewind.Error != "" {
				break
			}
			if r := j.ByID(ev.Rewind.Target); r != nil {
				return r.N
			}
			break
		}
	}
	return j.MaxN() + 1
}

// apply takes the safety checkpoint, writes the plan and verifies the
// result. The caller holds the lock.
func (c *rewindCLI) apply(ctx context.Context, s *session, pr *prepared) error {
	step := func(name string) error {
		if s.fail == nil {
			return nil
		}
		return s.fail(name)
	}
	keepIndex := ""
	if pr.move != nil {
		keepIndex = pr.move.index
	}
	safety, err := s.cap.Record(ctx, pr.j, pr.snap, capture.Options{Reason: store.ReasonPreRewind, NoDedup: true,
		Label: "before rewind to " + pr.target.ID, Index: keepIndex})
	if err != nil {
		return fault.Wrap(err, fault.As(err).Code, "cannot take the safety checkpoint, so nothing was changed")
	}
	if err := step("safety"); err != nil {
		return fault.Wrap(err, "failed.io", "the rewind did not start, so nothing was changed")
	}
	rw := &store.Rewind{Target: pr.target.ID, Commit: pr.target.Commit, Safety: safety.ID,
		Plan: pr.plan.ID, Files: len(pr.plan.Files), Undo: c.Undo}
	for _, l := range pr.plan.Left {
		if l.Reason != restore.LeftIgnoredInWay {
			continue
		}
		if len(rw.InTheWay) == maxInTheWay {
			rw.InTheWayMore = true
			break
		}
		rw.InTheWay = append(rw.InTheWay, l.Path)
	}
	if m := pr.move; m != nil {
		rw.HeadRef, rw.HeadFrom, rw.HeadTo, rw.Index = m.ref, m.from, m.to, m.index
	}
	if err := s.store.Append(pr.j, store.Event{Type: store.EventRewindStarted, Rewind: rw}); err != nil {
		return err
	}
	// ended journals the end of a rewind that stopped with the tree in a
	// known state (untouched, or put back), so that the next rewind is not
	// refused as interrupted.
	ended := func(err error) error {
		end := *rw
		end.Error = fault.As(err).Message
		s.store.Append(pr.j, store.Event{Type: store.EventRewindEnded, Rewind: &end})
		return err
	}
	if err := step("started"); err != nil {
		return ended(fault.Wrap(err, "failed.io", "the rewind stopped before it changed anything"))
	}
	applier := &restore.Applier{Git: s.git, Top: s.repo.Top, Staging: s.store.Path("staging"), Failpoint: s.fail}
	if err := s.store.Init(); err == nil {
		err = mkdirAll(applier.Staging)
	}
	stop := s.progress("restoring " + pr.target.ID)
	err = applier.Apply(ctx, pr.plan, safety.ID)
	stop()
	if err == nil && pr.move != nil {
		reason := "rewind: reset to " + pr.target.ID
		if c.Undo {
			reason = "rewind --undo: back to " + short(pr.move.to)
		}
		if err = s.moveHead(ctx, pr.move, reason, step); err != nil {
			err = applier.Revert(ctx, safety.ID, err)
		} else {
			s.repo.Head = pr.move.to
		}
	}
	if err != nil {
		if fault.As(err).Code != "failed.rewind_partial" {
			return ended(err)
		}
		return err
	}
	// The rewind wrote only the plan's paths (invariant 3), so the tree
	// now is the safety checkpoint's with those paths changed: a partial
	// capture of them gives the tree a full scan would find, at the cost
	// of the plan rather than of the tree. A write elsewhere by someone
	// else during the rewind goes unseen here, as it could a moment
	// later; the next scan takes it. See docs/speed.md.
	// So the checkpoint is recorded as a whole one: marked partial, every
	// rewind's own checkpoint would carry a warning nobody can act on.
	snap, err := s.cap.SnapshotPaths(ctx, pr.j, pr.plan.Paths(), pr.target.Tree)
	if err != nil {
		return err
	}
	scannedPlanOnly := snap.Partial
	snap.Partial = false
	after, err := s.cap.Record(ctx, pr.j, snap, capture.Options{Reason: store.ReasonRewind, Label: "after rewind to " + pr.target.ID})
	if err != nil {
		return err
	}
	unexpected, err := s.verify(ctx, pr, after, scannedPlanOnly)
	if err != nil {
		return err
	}
	exact := len(unexpected) == 0
	leaveUnwritten(pr.plan, applier.Left)
	if err := step("captured"); err != nil {
		return err
	}
	end := *rw
	end.Exact = &exact
	if err := s.store.Append(pr.j, store.Event{Type: store.EventRewindEnded, Rewind: &end}); err != nil {
		return err
	}
	if err := step("ended"); err != nil {
		return err
	}
	s.leaveNote(pr)
	return s.printPlan(ctx, pr, false, &appliedInfo{safety: safety.ID, exact: exact, unexpected: unexpected})
}

// verify checks the tree after the rewind: every planned path now matches
// the target (byte for byte where the checkpoint kept raw bytes), and
// nothing else changed but the paths the plan left (those were not touched,
// but a rewound .gitignore can make them visible). It returns the paths
// that break this, sorted; none means exact.
func (s *session) verify(ctx context.Context, pr *prepared, afterRec *store.Record, planOnly bool) ([]string, error) {
	after := afterRec.Tree
	odd := map[string]bool{}
	if afterRec.Raw != pr.target.Raw {
		// Files kept byte for byte must be as the target kept them.
		differ, err := rawDiffers(ctx, s, pr, afterRec.Raw)
		if err != nil {
			return nil, err
		}
		for _, p := range differ {
			odd[p] = true
		}
	}
	planned, left := map[string]bool{}, map[string]bool{}
	for _, f := range pr.plan.Files {
		planned[f.Path] = true
	}
	for _, l := range pr.plan.Left {
		left[l.Path] = true
	}
	if after != pr.target.Tree {
		vsTarget, err := s.changedPaths(ctx, pr.target.Tree, after)
		if err != nil {
			return nil, err
		}
		for _, p := range vsTarget {
			if planned[p] {
				odd[p] = true
			}
		}
	}
	if planOnly {
		// A partial capture of the plan's paths differs from the safety
		// checkpoint in planned paths only: nothing else to compare.
		return slices.Sorted(maps.Keys(odd)), nil
	}
	vsBefore, err := s.changedPaths(ctx, pr.snap.Tree, after)
	if err != nil {
		return nil, err
	}
	for _, p := range vsBefore {
		if !planned[p] && !left[p] {
			odd[p] = true
		}
	}
	return slices.Sorted(maps.Keys(odd)), nil
}

// interactive reports whether a person can answer a prompt.
func (s *session) interactive() bool {
	if s.g.JSON {
		return false
	}
	if s.sys.Getenv("GIT_CHECKPOINT_ASSUME_TTY") != "" {
		return true
	}
	return isTerminal(s.sys.Stdin) && isTerminal(s.sys.Stderr)
}

// confirm asks a yes/no question on stderr and reads the answer.
func (s *session) confirm(question string) bool {
	fmt.Fprintf(s.sys.Stderr, "%s [y/N] ", question)
	line, _ := bufio.NewReader(s.sys.Stdin).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true
	}
	return false
}

// rewindWithSafety finds the rewind whose safety checkpoint is id: the one
// an interrupted --undo was undoing.
func rewindWithSafety(j *store.Journal, id string) *store.Rewind {
	events := j.All()
	for i := len(events) - 1; i >= 0; i-- {
		if rw := events[i].Rewind; events[i].Type == store.EventRewindStarted && rw != nil && rw.Safety == id {
			return rw
		}
	}
	return nil
}

// checkFlags refuses combinations that would not mean one clear thing.
func (c *rewindCLI) checkFlags() error {
	bad := func(msg string) error {
		return fault.New("invalid.usage", "%s", msg).WithHint("see 'git rewind --help'")
	}
	switch {
	case c.ResetHead && c.Undo:
		return bad("--undo takes no --reset-head: it moves HEAD back by itself when the rewind it undoes moved it")
	case c.ResetHead && len(c.Paths) > 0:
		return bad("--reset-head restores the whole tree: it takes no paths")
	case c.Worktree != "" && (c.Undo || c.ResetHead || c.Plan != "" || c.Force || len(c.Paths) > 0):
		return bad("--worktree leaves this tree alone: it takes no --undo, --reset-head, --plan, --force or paths")
	case c.Plan != "" && !restore.IsPlanID(c.Plan):
		return fault.New("invalid.plan", "%s is not a plan id", fault.Quote(c.Plan)).
			WithHint("plan ids look like p1- and 16 hex digits; 'git rewind ID --dry-run' prints one")
	}
	return nil
}

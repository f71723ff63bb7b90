// Package rewind is the rewind transaction of DESIGN section 6: the
// preflight in the design's order, whose change each path is, the plan,
// the safety checkpoint, the journal records, the writes, the HEAD move,
// the verification and the conversation hint; and its two variants, the
// undo of the last rewind and the fork into a new worktree.
//
// It is the one door every way of rewinding goes through (the command
// line, and any other front end), so it prints nothing and asks nothing:
// it takes its dependencies explicitly (Rewinder) and returns values for
// the caller to show. It takes the store lock itself (held.go): Plan
// prepares a rewind to show, ApplyPlan prepares it again and applies it
// if it is the plan shown, and the lock is never held between them, while
// a person or a model reads.
package rewind

import (
	"context"

	"github.com/git-checkpoint/git-checkpoint/internal/capture"
	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/restore"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
	"github.com/git-checkpoint/git-checkpoint/internal/turns"
	"github.com/git-checkpoint/git-checkpoint/internal/workspace"
)

// Rewinder is the rewind transaction of one working tree: the workspace
// it was opened as (its git, store, capturer, journal and failure
// injection), and how a slow step is shown.
type Rewinder struct {
	*workspace.Workspace
	// Progress, when set, shows a slow step until the function it returns
	// is called.
	Progress func(what string) (stop func())
}

// Request is what a rewind is asked to do.
type Request struct {
	ID        string // the checkpoint; "" is the default target
	Undo      bool   // go back to the last rewind's safety checkpoint
	Force     bool   // rewind even though an earlier one was interrupted
	ResetHead bool   // move HEAD and the index back too
	DryRun    bool   // only show: preflight conflicts are noted, not returned
	Paths     []string
	Outside   string // refuse, keep or overwrite
	// Only and Session ask for a reversal instead of a checkpoint: of one
	// turn (t<n>) or range (kA..kB), or of every turn of a session (an id
	// or its unique prefix).
	Only, Session string
	// By is who applies the rewind, when not a person at the command
	// line (store.ByModel); the journal's records of it say so.
	By string
	// Ask says the caller shows the plan and asks before applying it,
	// and prepares again once answered: the scan then makes no commit for
	// a safety checkpoint that may never be taken (sealer).
	Ask bool
}

// Prepared is a plan and what it was computed from.
type Prepared struct {
	Journal *store.Journal
	Snap    *capture.Snapshot
	Target  *store.Record
	// Reverse, for --only and --session, is what is reversed; Target is
	// then the tree now with those changes taken out, not a checkpoint.
	Reverse *Reversal
	Plan    *restore.Plan
	// Interrupted is an earlier rewind that started and never ended.
	Interrupted *store.Rewind
	// Move is what happens to HEAD and the index (--reset-head, or the
	// undo of a rewind that moved them); nil when they stay.
	Move *HeadMove
	// Refused is the preflight conflict that would stop this plan from
	// being applied; only a dry run gets this far with one, and shows the
	// plan with it.
	Refused *fault.Error

	req  Request
	refs store.Refs // the checkpoint refs the target was resolved in
	// foreign says the target is a fetched store's checkpoint.
	foreign bool
	// classify says whose change each path is (DESIGN section 6.3).
	classify restore.Classifier
	// made, for an undo, are the paths the undone rewind created.
	made map[string]bool
	// sealedFor and sealedTarget are the default target the scan's
	// sealer chose for the tree sealedFor (defaultTarget), kept for
	// prepare to take when the snapshot is of that tree.
	sealedFor    string
	sealedTarget *store.Record
}

// defaultTarget is DefaultTarget of a snapshot of tree without a raw
// overlay, chosen once: the scan asks it for the safety checkpoint it
// seals and again for the one after the rewind, and prepare after the
// scan, each time of the same tree, and the choice walks the journal.
func (pr *Prepared) defaultTarget(tree string) *store.Record {
	if pr.sealedFor != tree {
		pr.sealedFor, pr.sealedTarget = tree, DefaultTarget(pr.Journal, pr.refs, tree, "")
	}
	return pr.sealedTarget
}

// Nothing reports whether the plan changes nothing at all.
func (pr *Prepared) Nothing() bool { return len(pr.Plan.Files) == 0 && pr.Move == nil }

// RecordRefusal lets a dry run go on past a preflight conflict, which it
// records to show with the plan (a dry run succeeds whenever it has a plan), and
// returns nil; any other error, or any error of a rewind that applies,
// comes back to stop it.
func (pr *Prepared) RecordRefusal(err error) error {
	if err == nil {
		return nil
	}
	if fe := fault.As(err); pr.req.DryRun && fe.Class() == fault.Conflict {
		if pr.Refused == nil {
			pr.Refused = fe
		}
		return nil
	}
	return err
}

// Check refuses to go on when the plan computed now is not the plan a
// person saw (want, a plan id): the tree changed in between.
func (pr *Prepared) Check(want string) error {
	if want == "" || pr.Plan.ID == want {
		return nil
	}
	return fault.New(fault.ConflictRewindStale, "the working tree changed since plan %s was made (it is now %s)", want, pr.Plan.ID).
		WithHint("run 'git rewind " + pr.TargetArg() + " --dry-run' to see the new plan").
		WithData(map[string]string{"expected": want, "plan": pr.Plan.ID})
}

// TargetArg is the argument that names what this rewind goes back to:
// the target's id, or the reversal's flag.
func (pr *Prepared) TargetArg() string {
	if pr.Reverse != nil {
		return pr.Reverse.Arg()
	}
	return pr.Target.ID
}

// prepare resolves the target, runs the preflight checks in the design's
// order and computes the plan. The caller holds the lock.
func (r *Rewinder) prepare(ctx context.Context, req Request) (*Prepared, error) {
	end := r.Git.Phase("journal read")
	j, refs, err := r.Journal(ctx)
	end()
	if err != nil {
		return nil, err
	}
	pr := &Prepared{Journal: j, req: req, refs: refs}
	started, ended := j.LastRewind()
	if started != nil && !ended {
		pr.Interrupted = started
	}
	undone := started
	switch {
	case req.Undo:
		if started == nil {
			return nil, fault.New(fault.NotFoundNothingToUndo, "there is no rewind to undo")
		}
		back := started.Safety
		if pr.Interrupted != nil && started.Undo {
			// An interrupted undo is finished, not undone: its target is
			// the tree before the rewind it was undoing.
			back = started.Target
			undone = rewindWithSafety(j, started.Target)
		}
		if pr.Target, err = turns.Resolve(j, refs, back); err != nil {
			return nil, err
		}
	case req.ID != "":
		if pr.Target, pr.foreign, err = r.resolve(ctx, j, refs, req.ID); err != nil {
			return nil, err
		}
	case req.Only != "" || req.Session != "":
		if pr.Reverse, err = resolveReversal(j, refs, req); err != nil {
			return nil, err
		}
	}
	if started != nil && !ended && !req.Undo && !req.Force {
		err := pr.RecordRefusal(fault.New(fault.ConflictInterruptedRewind, "a rewind to %s was interrupted before it finished; the tree before it is safety checkpoint %s", started.Target, started.Safety).
			WithHint("undo it with 'git rewind --undo' (back to safety checkpoint " + started.Safety + "), or pass --force to rewind anyway").
			WithData(map[string]string{"target": started.Target, "safety": started.Safety}))
		if err != nil {
			return nil, err
		}
	}
	if op := r.Repo.Operation(); op != nil {
		err := pr.RecordRefusal(fault.New(fault.ConflictGitOperation, "%s is in progress", op.Noun()).
			WithHint(op.Ending() + "; a rewind now would mix its files with the " + op.Name + "'s").
			WithData(map[string]string{"operation": op.Name}))
		if err != nil {
			return nil, err
		}
	}
	switch {
	case req.ResetHead && pr.Target != nil:
		pr.Move, err = r.planHeadMove(ctx, pr.Target)
	case req.Undo && undone != nil:
		pr.Move, err = r.undoHeadMove(undone)
	}
	if err == nil && req.Undo && undone != nil {
		pr.made, err = r.madeBy(ctx, j, undone)
	}
	if err = pr.RecordRefusal(err); err != nil {
		return nil, err
	}
	end = r.Git.Phase("scan")
	// The scan's pack is written while the plan is made and its files
	// staged: apply's safety checkpoint waits for it (git.Aside).
	r.Capture.WriteAside = true
	r.Capture.Seal, r.Capture.SealNext = r.sealer(pr)
	pr.Snap, err = r.Capture.Snapshot(ctx, j)
	r.Capture.WriteAside, r.Capture.Seal, r.Capture.SealNext = false, nil, nil
	end()
	if err == nil {
		// A kill here leaves the pack and the state half written.
		err = r.Fail.At("scanned")
	}
	if err != nil {
		return nil, err
	}
	if pr.Reverse != nil {
		if err := r.reverse(ctx, pr); err != nil {
			return nil, err
		}
	}
	if pr.Target == nil && pr.Snap.Raw == "" && pr.sealedFor == pr.Snap.Tree && pr.sealedTarget != nil {
		pr.Target = pr.sealedTarget
	}
	if pr.Target == nil {
		if pr.Target, err = defaultTargetOrError(j, refs, pr.Snap.Tree, pr.Snap.Raw); err != nil {
			return nil, err
		}
	}
	if req.ResetHead && pr.Move == nil && r.Repo.Head != pr.Target.Head {
		// The target came from the default choice, after the snapshot.
		if pr.Move, err = r.planHeadMove(ctx, pr.Target); pr.RecordRefusal(err) != nil {
			return nil, err
		}
	}
	classified := func() error { return nil }
	if pr.foreign {
		// No turn of this tree made a fetched checkpoint's files: every
		// local change it would undo is a person's, kept unless
		// --outside says otherwise.
		if pr.classify, err = turns.ClassifyLocal(ctx, r.Git, r.Repo.Head, pr.Snap.Tree); err != nil {
			return nil, err
		}
	}
	if pr.classify == nil {
		pr.classify, classified = r.classifyAside(ctx, j, pr.Target, pr.Snap.Tree)
	}
	end = r.Git.Phase("plan")
	pr.Plan, err = r.Replan(ctx, pr, req.Outside)
	end()
	if cerr := classified(); cerr != nil {
		return nil, cerr
	}
	if err != nil {
		return nil, err
	}
	if err := r.checkPaths(pr.Plan, req.Paths); err != nil {
		return nil, err
	}
	if pr.Move != nil {
		if pr.Move.Index, err = r.saveIndex(ctx); err != nil {
			return nil, err
		}
	}
	return pr, nil
}

// sealer tells the scan which safety checkpoint its snapshot will be, so
// that the scan makes its commit and writes it in its pack (see
// capture.Capturer.Seal): the checkpoint to go back to is known by then,
// or is the default one, which the snapshot's tree decides. None for a
// dry run or a plan to be asked about, which take no safety checkpoint
// now, a reversal, whose target is made after the scan, or a move of
// HEAD, whose safety checkpoint keeps the index saved after the plan.
//
// The second function it returns says which checkpoint follows it, the
// one after the rewind, whose commit the scan makes too, in the same pack
// (capture.Capturer.SealNext), where git hash-object wrote it while the
// files were written: it is taken only if the plan then makes the target's
// tree (sealAfter), so a rewind limited to some paths makes none.
func (r *Rewinder) sealer(pr *Prepared) (seal func(tree string) (capture.Options, bool), next func(tree string) (string, capture.Options, bool)) {
	req := pr.req
	if req.DryRun || req.Ask || req.ResetHead || pr.Move != nil || req.Only != "" || req.Session != "" {
		return nil, nil
	}
	target := func(tree string) *store.Record {
		if pr.Target != nil {
			return pr.Target
		}
		// A sealed commit is one of a snapshot with no raw overlay
		// (Capturer.seal).
		return pr.defaultTarget(tree)
	}
	seal = func(tree string) (capture.Options, bool) {
		t := target(tree)
		if t == nil {
			return capture.Options{}, false
		}
		return safetyOptions(t, ""), true
	}
	next = func(tree string) (string, capture.Options, bool) {
		t := target(tree)
		if t == nil || t.Raw != "" || len(req.Paths) > 0 {
			return "", capture.Options{}, false
		}
		return t.Tree, afterOptions(t), true
	}
	return seal, next
}

// safetyOptions describe the safety checkpoint of a rewind to target,
// which keeps index (the real index's tree before a move of HEAD) when
// set.
func safetyOptions(target *store.Record, index string) capture.Options {
	return capture.Options{Reason: store.ReasonPreRewind, NoDedup: true,
		Label: "before rewind to " + target.ID, Index: index}
}

// resolve finds the checkpoint id names: this tree's own (in j and refs),
// or, for "<store>:<id>", a fetched store's (foreign).
func (r *Rewinder) resolve(ctx context.Context, j *store.Journal, refs store.Refs, id string) (target *store.Record, foreign bool, err error) {
	if _, _, ok := turns.InStore(id); !ok {
		target, err = turns.Resolve(j, refs, id)
		return target, false, err
	}
	target, err = r.Fetched(ctx, id)
	return target, true, err
}

// Replan makes the plan of pr with outside as the choice for the paths a
// person changed: every plan a rewind shows or applies is made here, so
// that the plan a prompt chose and the one applied have the same id.
func (r *Rewinder) Replan(ctx context.Context, pr *Prepared, outside string) (*restore.Plan, error) {
	return restore.New(ctx, r.Git, restore.Request{
		Top:        r.Repo.Top,
		Current:    pr.Snap.Tree,
		CurrentRaw: pr.Snap.Raw,
		// The snapshot was just taken, as every capture is: verbatim.
		CurrentVerbatim: true,
		Head:            r.Repo.Head,
		Skipped:         pr.Snap.Skipped,
		Target:          pr.Target,
		Options: restore.Options{Paths: pr.req.Paths, Outside: outside, ResetHead: pr.req.ResetHead,
			Keep: r.keepHookConfig(ctx), Made: pr.made},
		Classify: pr.classify,
	})
}

package rewind

import (
	"context"
	"maps"
	"os"
	"slices"

	"github.com/git-checkpoint/git-checkpoint/internal/capture"
	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/restore"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// Applied is what a rewind did, beyond its plan.
type Applied struct {
	Safety     string   // the safety checkpoint: --undo goes back to it
	Exact      bool     // the tree matches the target where the plan said
	Unexpected []string // the paths that made Exact false, sorted
}

// maxInTheWay bounds the paths a rewind's record keeps in InTheWay.
const maxInTheWay = 1000

// CloseInterrupted ends the interrupted rewind an undo found nothing to do
// for: it never changed a file (or its undo already happened), so the
// tree is back. The caller holds the lock.
func (r *Rewinder) CloseInterrupted(pr *Prepared) error {
	if pr.Interrupted == nil || !pr.req.Undo || !pr.Nothing() {
		return nil
	}
	end := *pr.Interrupted
	exact := true
	end.Exact = &exact
	return r.Store.Append(pr.Journal, store.Event{Type: store.EventRewindEnded, Rewind: &end})
}

// apply takes the safety checkpoint, journals the start, writes the plan,
// moves HEAD if asked, checkpoints and verifies the result, journals the
// end and leaves the conversation hint. The caller holds the lock.
//
// The target's files are staged while the safety checkpoint's commit and
// ref are written: staging writes only the state directory, never the
// tree (invariant 2 is about the tree), and syncs the staged files
// (restore.Applier.Stage); the safety checkpoint's directories are then
// synced before its journal line. Likewise the directories the rewind
// wrote reach the disk with the checkpoint after it, before its line.
// Each sync is of what the rewind wrote, not of the filesystem, which
// would wait for every program's writes to the disk (docs/fault-safety.md,
// "Power loss").
func (r *Rewinder) apply(ctx context.Context, pr *Prepared) (*Applied, error) {
	keepIndex := ""
	if pr.Move != nil {
		keepIndex = pr.Move.Index
	}
	// A reversal's target is made from the tree as it is, whose new
	// objects may be what the scan is still writing; a checkpoint's
	// are older.
	applier := &restore.Applier{Git: r.Git, Top: r.Repo.Top, Staging: r.Store.Path("staging"), Fail: r.Fail,
		Plain: r.Capture.Plain(), Older: pr.Reverse == nil}
	if err := r.Store.Init(); err != nil {
		return nil, err
	}
	if err := mkdirAll(applier.Staging); err != nil {
		return nil, err
	}
	// The two checkpoint refs are made by one update-ref, started now
	// (git.Runner.OpenRefs).
	r.Git.OpenRefs(ctx)
	defer r.Git.CloseRefs()
	staged := stageAside(ctx, applier, pr.Plan)
	hidden := r.hiddenAside(ctx, pr.Plan)
	endSafety := r.Git.Phase("safety checkpoint")
	safety, err := r.Capture.Commit(ctx, pr.Journal, pr.Snap, safetyOptions(pr.Target, keepIndex))
	st, stageErr := staged()
	defer st.Remove()
	if err == nil {
		err = r.Store.SyncRefs() // Stage synced the staged files
	}
	if err == nil {
		err = r.Capture.Enter(pr.Journal, safety)
	}
	endSafety()
	if stageErr != nil {
		// The cause, whatever became of the safety checkpoint: on a full
		// disk the staged files may have left it no room.
		return nil, fault.Wrap(stageErr, fault.FailedIO, "the rewind stopped before it changed anything")
	}
	if err != nil {
		return nil, fault.Wrap(err, fault.As(err).Code, "cannot take the safety checkpoint, so nothing was changed")
	}
	if err := r.Fail.At("safety"); err != nil {
		return nil, fault.Wrap(err, fault.FailedIO, "the rewind did not start, so nothing was changed")
	}
	rw := &store.Rewind{Target: pr.Target.ID, Commit: pr.Target.Commit, Safety: safety.ID,
		Plan: pr.Plan.ID, Files: len(pr.Plan.Files), Undo: pr.req.Undo, By: pr.req.By}
	for _, l := range pr.Plan.Left {
		if l.Reason != restore.LeftIgnoredInWay {
			continue
		}
		if len(rw.InTheWay) == maxInTheWay {
			rw.InTheWayMore = true
			break
		}
		rw.InTheWay = append(rw.InTheWay, l.Path)
	}
	if m := pr.Move; m != nil {
		rw.HeadRef, rw.HeadFrom, rw.HeadTo, rw.Index = m.Ref, m.From, m.To, m.Index
	}
	if err := r.Store.Append(pr.Journal, store.Event{Type: store.EventRewindStarted, Rewind: rw}); err != nil {
		return nil, err
	}
	// ended journals the end of a rewind that stopped with the tree in a
	// known state (untouched, or put back), so that the next rewind is not
	// refused as interrupted. Not an --undo of an interrupted rewind: put
	// back, the tree is still the interrupted one's, part old, part new,
	// and the next --undo must still finish it, as it finishes any
	// interrupted undo. Journaled as ended, it became the last rewind, and
	// the next --undo went back to its safety checkpoint (the tree as the
	// crash left it) and said it was done (the power-loss test found it:
	// a --reset-head cut short with git's HEAD.lock left, whose --undo
	// failed until the lock was removed).
	ended := func(err error) error {
		if pr.Interrupted != nil && pr.req.Undo {
			return err
		}
		end := *rw
		end.Error = fault.As(err).Message
		r.Store.Append(pr.Journal, store.Event{Type: store.EventRewindEnded, Rewind: &end})
		return err
	}
	if err := r.Fail.At("started"); err != nil {
		return nil, ended(fault.Wrap(err, fault.FailedIO, "the rewind stopped before it changed anything"))
	}
	r.sealAfter(ctx, pr)
	h := hidden() // the rules before any file is written
	stop := r.progress("restoring " + pr.Target.ID)
	err = applier.Apply(ctx, pr.Plan, st, safety.ID)
	stop()
	if err == nil && pr.Move != nil {
		reason := "rewind: reset to " + pr.Target.ID
		if pr.req.Undo {
			reason = "rewind --undo: back to " + fault.Short(pr.Move.To)
		}
		if err = r.moveHead(ctx, pr.Move, reason); err != nil {
			err = applier.Revert(ctx, safety.ID, err)
		} else {
			r.Repo.Head = pr.Move.To
		}
	}
	if err != nil {
		if fault.As(err).Code != fault.FailedRewindPartial {
			return nil, ended(err)
		}
		return nil, err
	}
	after, scannedPlanOnly, err := r.captureAfter(ctx, pr, applier, h)
	if err != nil {
		// Every file is in place: the rewind ended, unverified, and is
		// not left "interrupted" to refuse the next one. Its safety
		// checkpoint is what --undo goes back to.
		return nil, ended(fault.Wrap(err, fault.As(err).Code, "the rewind to %s wrote its files, but the checkpoint after it failed", pr.Target.ID).
			WithHint("undo it with 'git rewind --undo' (back to safety checkpoint " + safety.ID + ")"))
	}
	endVerify := r.Git.Phase("verify")
	unexpected, err := r.verify(ctx, pr, after, scannedPlanOnly)
	endVerify()
	if err != nil {
		return nil, err
	}
	unexpected = withWrittenDuring(unexpected, applier.Left)
	exact := len(unexpected) == 0
	leaveUnwritten(pr.Plan, applier.Left)
	if err := r.Fail.At("captured"); err != nil {
		return nil, err
	}
	end := *rw
	end.Exact = &exact
	if err := r.Store.Append(pr.Journal, store.Event{Type: store.EventRewindEnded, Rewind: &end}); err != nil {
		return nil, err
	}
	if err := r.Fail.At("ended"); err != nil {
		return nil, err
	}
	r.Capture.PackIfDue(ctx, safety, after)
	r.leaveNote(pr)
	return &Applied{Safety: safety.ID, Exact: exact, Unexpected: unexpected}, nil
}

// stageAside starts staging the plan's files, which the function it
// returns waits for. A staging failure waits too: the safety checkpoint
// is taken and journaled all the same if it can be (an ordinary
// checkpoint, as when a rewind is killed before it starts), and the
// rewind then stops with nothing in the tree changed.
func stageAside(ctx context.Context, a *restore.Applier, p *restore.Plan) (wait func() (*restore.Staged, error)) {
	type result struct {
		st  *restore.Staged
		err error
	}
	done := make(chan result, 1)
	go func() {
		st, err := a.Stage(ctx, p.Files)
		done <- result{st, err}
	}()
	return func() (*restore.Staged, error) {
		res := <-done
		return res.st, res.err
	}
}

// captureAfter checkpoints the tree the rewind left and syncs it with the
// directories the rewind wrote. The rewind wrote only the plan's paths
// (invariant 3), so the tree now is the safety checkpoint's with those
// paths changed, and, where it wrote a .gitignore, the files whose rules
// changed (h, capture.Hidden): a partial capture of them gives the tree
// a full scan would find, at the cost of the plan rather than of the
// tree. A write
// elsewhere by someone else during the rewind goes unseen here, as it
// could a moment later; the next scan takes it. See docs/speed.md. So the
// checkpoint is recorded as a whole one (planOnly says it scanned the
// plan's paths only): marked partial, every rewind's own checkpoint would
// carry a warning nobody can act on.
func (r *Rewinder) captureAfter(ctx context.Context, pr *Prepared, a *restore.Applier, h *capture.Hidden) (after *store.Record, planOnly bool, err error) {
	end := r.Git.Phase("capture after")
	defer end()
	if err := r.Fail.At("after"); err != nil {
		return nil, false, err
	}
	exp := expectAfter(pr.Plan)
	exp.Hidden = h
	snap, err := r.Capture.SnapshotPaths(ctx, pr.Journal, pr.Plan.Paths(), exp)
	if err == nil {
		// With the rules changed, paths beyond the plan's can come or go.
		planOnly = snap.Partial && h == nil
		snap.Partial = false
		after, err = r.Capture.Commit(ctx, pr.Journal, snap, afterOptions(pr.Target))
	}
	// The directories written reach the disk whatever happened since,
	// and so do the checkpoint's objects and ref.
	if serr := a.Sync(); err == nil && serr != nil {
		err = fault.Wrap(serr, fault.FailedIO, "cannot sync the rewound files to disk")
	}
	if err == nil {
		err = r.Store.SyncRefs() // and HEAD's, where --reset-head moved it
	}
	if err != nil {
		return nil, false, err
	}
	return after, planOnly, r.Capture.Enter(pr.Journal, after)
}

// afterOptions describe the checkpoint of the tree a rewind to target
// left.
func afterOptions(target *store.Record) capture.Options {
	return capture.Options{Reason: store.ReasonRewind, Label: "after rewind to " + target.ID}
}

// sealAfter makes the commit of the checkpoint after the rewind before
// the rewind writes its files, when the plan says what the tree will be
// (every difference from the target written, no file kept byte for byte,
// HEAD staying): the scan's pack holds it (sealer), or else git writes it
// while the files are written. captureAfter's Commit takes it if the tree
// is then what the plan said (capture.Capturer.SealAhead).
func (r *Rewinder) sealAfter(ctx context.Context, pr *Prepared) {
	if !pr.Plan.Whole() || pr.Move != nil || pr.Snap.Raw != "" || pr.Target.Raw != "" {
		return
	}
	r.Capture.SealAhead(ctx, pr.Journal, pr.Plan.Target.Tree, afterOptions(pr.Target))
}

// expectAfter is what the tree should be once the plan is written: the
// target's tree, and, when the plan makes every difference between the
// tree and the target, each path's entry before and after, with which the
// capture after the rewind need read no tree to know it has the target's.
//
// Every file the plan writes is the target's, whose content the store
// holds: bringing it back is no new content (capture.Expect.Stored).
func expectAfter(p *restore.Plan) *capture.Expect {
	exp := &capture.Expect{Tree: p.Target.Tree, Stored: map[string]bool{}}
	for _, f := range p.Files {
		if f.Mode != git.AbsentMode {
			exp.Stored[f.Path] = true
		}
	}
	if !p.Whole() {
		return exp
	}
	exp.Base, exp.Entries = p.Current, make(map[string]git.DiffEntry, len(p.Files))
	for _, f := range p.Files {
		exp.Entries[f.Path] = git.DiffEntry{OldMode: f.OldMode, OldOID: f.OldOID, Mode: f.Mode, OID: f.OID, Path: f.Path}
	}
	return exp
}

func (r *Rewinder) progress(what string) (stop func()) {
	if r.Progress == nil {
		return func() {}
	}
	return r.Progress(what)
}

// verify checks the tree after the rewind: every planned path now matches
// the target (byte for byte where the checkpoint kept raw bytes), and
// nothing else changed but the paths the plan left (those were not touched,
// but a rewound .gitignore can make them visible). It returns the paths
// that break this, sorted; none means exact.
func (r *Rewinder) verify(ctx context.Context, pr *Prepared, afterRec *store.Record, planOnly bool) ([]string, error) {
	after := afterRec.Tree
	planned, left := map[string]bool{}, map[string]bool{}
	for _, f := range pr.Plan.Files {
		planned[f.Path] = true
	}
	for _, l := range pr.Plan.Left {
		left[l.Path] = true
	}
	odd, err := r.bytesDiffer(ctx, pr, afterRec, planned)
	if err != nil {
		return nil, err
	}
	if planOnly {
		// A partial capture of the plan's paths differs from the safety
		// checkpoint in planned paths only: nothing else to compare.
		return slices.Sorted(maps.Keys(odd)), nil
	}
	vsBefore, err := r.changedPaths(ctx, pr.Snap.Tree, after)
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

// bytesDiffer lists the planned paths whose bytes on disk after the
// rewind (afterRec) are not the target's. Each side's bytes are its raw
// overlay's blob where it kept one, else its tree's entry: a path whose
// trees differ only because git would now store the same bytes otherwise
// (core.autocrlf turned off since, an eol attribute gone) is exact, and
// one whose trees agree while its raw bytes do not is not (invariant 10).
func (r *Rewinder) bytesDiffer(ctx context.Context, pr *Prepared, afterRec *store.Record, planned map[string]bool) (map[string]bool, error) {
	candidates := map[string]bool{}
	if afterRec.Tree != pr.Target.Tree {
		vsTarget, err := r.changedPaths(ctx, pr.Target.Tree, afterRec.Tree)
		if err != nil {
			return nil, err
		}
		for _, p := range vsTarget {
			candidates[p] = planned[p]
		}
	}
	maps.DeleteFunc(candidates, func(_ string, ok bool) bool { return !ok })
	odd := map[string]bool{}
	if len(candidates) == 0 && afterRec.Raw == pr.Target.Raw {
		return odd, nil // the same trees and the same raw bytes
	}
	afterRaw, err := r.treeEntries(ctx, afterRec.Raw, nil)
	if err != nil {
		return nil, err
	}
	targetRaw, err := r.treeEntries(ctx, pr.Target.Raw, nil)
	if err != nil {
		return nil, err
	}
	for p := range planned {
		if afterRaw[p] != targetRaw[p] {
			candidates[p] = true
		}
	}
	if len(candidates) == 0 {
		return odd, nil
	}
	paths := slices.Sorted(maps.Keys(candidates))
	if len(paths) > maxListed {
		paths = nil // the whole trees, rather than a command line too long
	}
	afterTree, err := r.treeEntries(ctx, afterRec.Tree, paths)
	if err != nil {
		return nil, err
	}
	targetTree, err := r.treeEntries(ctx, pr.Target.Tree, paths)
	if err != nil {
		return nil, err
	}
	for p := range candidates {
		if onDisk(afterTree[p], afterRaw[p]) != onDisk(targetTree[p], targetRaw[p]) {
			odd[p] = true
		}
	}
	return odd, nil
}

// maxListed bounds the paths one ls-tree is given on its command line.
const maxListed = 1000

// onDisk is the mode and blob of a path's bytes on disk, as a checkpoint
// records them: its tree's entry, with the raw overlay's blob where it
// kept one.
func onDisk(tree, raw git.TreeEntry) git.TreeEntry {
	if raw.OID != "" {
		tree.OID = raw.OID
	}
	return tree
}

// treeEntries lists the blobs of tree (a raw overlay, or "" for none) by
// path: all of them, or those at paths.
func (r *Rewinder) treeEntries(ctx context.Context, tree string, paths []string) (map[string]git.TreeEntry, error) {
	m := map[string]git.TreeEntry{}
	if tree == "" {
		return m, nil
	}
	list, err := r.Git.LsTree(ctx, tree, git.LsTreeOptions{Recursive: true, Paths: paths})
	for _, e := range list {
		m[e.Path] = e
	}
	return m, err
}

// changedPaths lists the paths that differ between two trees.
func (r *Rewinder) changedPaths(ctx context.Context, a, b string) ([]string, error) {
	entries, err := r.Git.DiffTree(ctx, a, b, git.DiffTreeOptions{Format: git.DiffNameOnly})
	paths := make([]string, len(entries))
	for i, e := range entries {
		paths[i] = e.Path
	}
	return paths, err
}

// withWrittenDuring adds to the unexpected paths those written while the
// rewind ran (restore.LeftChangedDuring): the rewind did not write them,
// so the result is never exact for them, even where the writer happened
// to leave the checkpoint's bytes (invariant 9).
func withWrittenDuring(unexpected []string, left []restore.Left) []string {
	for _, l := range left {
		if l.Reason == restore.LeftChangedDuring && !slices.Contains(unexpected, l.Path) {
			unexpected = append(unexpected, l.Path)
		}
	}
	slices.Sort(unexpected)
	return unexpected
}

// leaveUnwritten moves the paths the rewind found in the way while writing
// from the plan's files to its left list, so that what is shown is what
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

func mkdirAll(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fault.Wrap(err, fault.FailedIO, "cannot create %s", dir)
	}
	return nil
}

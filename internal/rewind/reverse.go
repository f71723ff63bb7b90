package rewind

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/restore"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
	"github.com/git-checkpoint/git-checkpoint/internal/turns"
)

// Reversal is what a rewind with --only or --session takes back out of
// the tree (DESIGN section 11): the changes of each step, from its start
// checkpoint to its end, newest first, keeping everything else.
type Reversal struct {
	Only    string `json:"only,omitempty"`    // the --only argument: t<n> or kA..kB
	Session string `json:"session,omitempty"` // the session's whole id
	Steps   []Step `json:"steps"`
}

// Step is one stretch a reversal undoes: a turn, or a range of checkpoints.
type Step struct {
	Turn     string `json:"turn,omitempty"`
	From     string `json:"from"`
	To       string `json:"to"`
	from, to *store.Record
}

// name is how the step is called in messages.
func (s Step) name() string {
	if s.Turn != "" {
		return s.Turn
	}
	return s.From + ".." + s.To
}

// ReasonReverse is the reason of a reversal's target, which is no
// checkpoint: the tree now with the steps' changes taken out.
const ReasonReverse = "reverse"

var turnID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^t[0-9]+$`) })

// Arg is the argument that names the reversal again on a command line.
func (rv *Reversal) Arg() string {
	if rv.Only != "" {
		return "--only " + rv.Only
	}
	return "--session " + rv.Session
}

// resolveReversal finds the steps req.Only or req.Session names. Every
// step must have ended: a running turn is still writing, and what it
// changed is not known yet.
func resolveReversal(j *store.Journal, refs store.Refs, req Request) (*Reversal, error) {
	if req.Only != "" {
		rv := &Reversal{Only: req.Only}
		if a, b, ok := strings.Cut(req.Only, ".."); ok {
			from, err := turns.Resolve(j, refs, a)
			if err != nil {
				return nil, err
			}
			to, err := turns.Resolve(j, refs, b)
			if err != nil {
				return nil, err
			}
			if to.N <= from.N {
				return nil, fault.New(fault.InvalidUsage, "--only %s: %s is not later than %s", req.Only, to.ID, from.ID).
					WithHint("a range is the older checkpoint first: --only " + to.ID + ".." + from.ID)
			}
			rv.Steps = []Step{{From: from.ID, To: to.ID, from: from, to: to}}
			return rv, nil
		}
		if !turnID().MatchString(req.Only) {
			return nil, fault.New(fault.InvalidCheckpointID, "--only takes a turn or a range of checkpoints, not %s", fault.Quote(req.Only)).
				WithHint("--only t<n> reverses one turn, --only kA..kB the changes from kA to kB; 'git checkpoint list' shows both")
		}
		for _, t := range turns.History(j) {
			if t.ID == req.Only {
				st, err := turnStep(j, refs, t)
				if err != nil {
					return nil, err
				}
				rv.Steps = []Step{st}
				return rv, nil
			}
		}
		return nil, fault.New(fault.NotFoundCheckpoint, "no turn %s", req.Only).
			WithHint("'git checkpoint list' shows the turns").WithData(map[string]string{"id": req.Only})
	}
	session, err := turns.MatchSession(j, req.Session)
	if err != nil {
		return nil, err
	}
	if session == "" {
		return nil, fault.New(fault.NotFoundCheckpoint, "no session %s", fault.Quote(req.Session)).
			WithHint("'git checkpoint log' shows the sessions of the turns").
			WithData(map[string]string{"session": req.Session})
	}
	rv := &Reversal{Session: session}
	hist := turns.History(j)
	for i := len(hist) - 1; i >= 0; i-- {
		if hist[i].Session != session {
			continue
		}
		st, err := turnStep(j, refs, hist[i])
		if err != nil {
			return nil, err
		}
		rv.Steps = append(rv.Steps, st)
	}
	if len(rv.Steps) == 0 {
		return nil, fault.New(fault.NotFoundCheckpoint, "session %s has no turns", fault.Quote(session)).
			WithHint("'git checkpoint list --session " + session + "' shows its checkpoints; rewind to one with 'git rewind ID'").
			WithData(map[string]string{"session": session})
	}
	return rv, nil
}

// turnStep is the step of turn t, whose two checkpoints must be there.
func turnStep(j *store.Journal, refs store.Refs, t turns.Turn) (Step, error) {
	if t.End == nil {
		return Step{}, fault.New(fault.ConflictTurnRunning, "turn %s has not ended: what it changes is not known yet", t.ID).
			WithHint("wait for it to end, then try again; 'git rewind " + t.ID + "' goes back to its start now").
			WithData(map[string]string{"turn": t.ID})
	}
	if t.Start == nil {
		return Step{}, fault.New(fault.NotFoundCheckpoint, "turn %s has no start checkpoint any more", t.ID).
			WithHint("retention removed it; 'git checkpoint list' shows what is left").WithData(map[string]string{"turn": t.ID})
	}
	from, err := turns.Resolve(j, refs, t.Start.ID)
	if err != nil {
		return Step{}, err
	}
	to, err := turns.Resolve(j, refs, t.End.ID)
	if err != nil {
		return Step{}, err
	}
	return Step{Turn: t.ID, From: from.ID, To: to.ID, from: from, to: to}, nil
}

// reverse computes the target of a reversal with git's own three-way
// merge, step after step: base the step's end, ours the tree so far (at
// first the snapshot), theirs the step's start. What changed since the end
// is kept; a path that does not merge refuses the whole rewind. The
// target is no checkpoint: its commit is the merged tree, which the plan's
// id and the rewind's record name. Whose change each path is comes from
// the stretches reversed, not from what happened since: the merge keeps
// the later changes, so only a person's edit made while a reversed turn
// ran is undone, and that one is outside.
func (r *Rewinder) reverse(ctx context.Context, pr *Prepared) error {
	rv := pr.Reverse
	ours, raw := pr.Snap.Tree, pr.Snap.Raw
	var skipped []store.Skip
	var classes []restore.Classifier
	for _, st := range rv.Steps {
		if st.from.Tree == st.to.Tree {
			continue
		}
		res, err := r.Git.MergeTree(ctx, git.MergeRequest{Base: st.to.Tree, Ours: ours, Theirs: st.from.Tree})
		if err != nil {
			return err
		}
		var conflicts []string
		for _, p := range res.Conflicts {
			if restore.Under(p, pr.req.Paths) {
				conflicts = append(conflicts, p)
			}
		}
		if len(conflicts) > 0 {
			return r.revertConflicts(ctx, pr, st, conflicts)
		}
		if raw, err = r.reverseRaw(ctx, ours, res.Tree, raw, st.from); err != nil {
			return err
		}
		ours = res.Tree
		for _, s := range append(slices.Clone(st.from.Skipped), st.to.Skipped...) {
			if s.Unheld() {
				skipped = append(skipped, s)
			}
		}
		c, err := turns.ClassifyBetween(ctx, r.Git, pr.Journal, st.from, st.to)
		if err != nil {
			return err
		}
		classes = append(classes, c)
	}
	id := rv.Only
	if id == "" {
		id = rv.Session
	}
	pr.Target = &store.Record{ID: id, Commit: ours, Tree: ours, Raw: raw, Verbatim: rv.verbatim(), Head: r.Repo.Head,
		Reason: ReasonReverse, Label: "reversing " + id, Skipped: skipped, At: rv.Steps[0].to.At}
	pr.classify = combine(classes)
	return nil
}

// combine says whose change a path is over several stretches: outside in
// any of them first (a person's edit would be undone), then agent, turn.
func combine(cs []restore.Classifier) restore.Classifier {
	rank := []string{turns.ClassOutside, turns.ClassAgent, turns.ClassTurn}
	return func(p string) string {
		best := len(rank)
		for _, c := range cs {
			if i := slices.Index(rank, c(p)); i >= 0 && i < best {
				best = i
			}
		}
		if best == len(rank) {
			return turns.ClassUnattributed
		}
		return rank[best]
	}
}

// revertConflicts is the refusal of a reversal some paths of which do not
// merge: nothing is changed, and the hint names the paths of the step that
// would reverse cleanly, for a reversal of just those.
func (r *Rewinder) revertConflicts(ctx context.Context, pr *Prepared, st Step, conflicts []string) error {
	list := fault.QuoteList(conflicts, 10)
	changed, err := r.changedPaths(ctx, st.from.Tree, st.to.Tree)
	if err != nil {
		return err
	}
	var clean []string
	for _, p := range changed {
		if !slices.Contains(conflicts, p) && restore.Under(p, pr.req.Paths) {
			clean = append(clean, p)
		}
	}
	hints := []string{"they changed again after " + st.name() + " where it changed them; nothing was changed"}
	switch {
	case len(clean) == 0:
		hints = append(hints, "no other path of "+st.name()+" to reverse; 'git checkpoint diff "+st.From+" "+st.To+"' shows its changes")
	case len(clean) <= 10:
		quoted := make([]string, len(clean))
		for i, p := range clean {
			quoted[i] = fault.ShellQuote(p)
		}
		hints = append(hints, "reverse the paths that reverse cleanly: git rewind "+pr.Reverse.Arg()+" -- "+strings.Join(quoted, " "))
	default:
		hints = append(hints, fmt.Sprintf("reverse the %d paths that reverse cleanly: git rewind %s -- PATH... ('git checkpoint diff %s %s --stat' lists what %s changed)",
			len(clean), pr.Reverse.Arg(), st.From, st.To, st.name()))
	}
	return fault.New(fault.ConflictRevertConflicts, "%d %s of %s %s not reverse cleanly: %s", len(conflicts),
		fault.Plural(len(conflicts), "path", "paths"), st.name(), fault.Plural(len(conflicts), "does", "do"), list).
		WithHint(hints...).
		WithData(map[string]any{"paths": conflicts, "turn": st.Turn, "from": st.From, "to": st.To})
}

// reverseRaw is the raw overlay (the files kept byte for byte) of the
// tree after a step, from the one before it (rawBefore, of tree before):
// a path the step did not change keeps its bytes; one it gave back as
// start had it takes start's bytes; one merged with later changes has
// none. A change of line endings alone changes no tree, so no reversal
// takes it back.
func (r *Rewinder) reverseRaw(ctx context.Context, before, after, rawBefore string, start *store.Record) (string, error) {
	if rawBefore == "" && start.Raw == "" {
		return "", nil
	}
	changed, err := r.changedPaths(ctx, before, after)
	if err != nil || len(changed) == 0 {
		return rawBefore, err
	}
	cur, err := r.treeEntries(ctx, rawBefore, nil)
	if err != nil {
		return "", err
	}
	startRaw, err := r.treeEntries(ctx, start.Raw, nil)
	if err != nil {
		return "", err
	}
	differ, err := r.Git.DiffTree(ctx, start.Tree, after, git.DiffTreeOptions{Format: git.DiffNameOnly, LiteralPathspecs: true, Pathspecs: changed})
	if err != nil {
		return "", err
	}
	notStart := map[string]bool{}
	for _, e := range differ {
		notStart[e.Path] = true
	}
	for _, p := range changed {
		delete(cur, p)
		if e, ok := startRaw[p]; ok && !notStart[p] {
			cur[p] = e
		}
	}
	if len(cur) == 0 {
		return "", nil
	}
	entries := make([]git.IndexEntry, 0, len(cur))
	for _, e := range cur {
		entries = append(entries, git.IndexEntry{Mode: e.Mode, OID: e.OID, Path: e.Path})
	}
	if err := r.Store.Init(); err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp(r.Store.Dir, "reverse-")
	if err != nil {
		return "", fault.Wrap(err, fault.FailedIO, "cannot make a temporary index")
	}
	defer os.RemoveAll(dir)
	index := filepath.Join(dir, "index")
	if err := r.Git.UpdateIndexInfo(ctx, index, entries); err != nil {
		return "", err
	}
	return r.Git.WriteTree(ctx, index)
}

// verbatim says every checkpoint the reversal takes files from records
// the disk (store.Record.Verbatim); the current tree's snapshot does.
func (rv *Reversal) verbatim() bool {
	for _, st := range rv.Steps {
		if !st.from.Verbatim {
			return false
		}
	}
	return true
}

package turns

import (
	"context"
	"slices"

	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/restore"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// Classes of a path in a rewind's plan (DESIGN section 6.3).
const (
	ClassAgent        = "agent"        // an edit tool call of an agent turn named it
	ClassTurn         = "turn"         // it changed while one agent turn ran (a shell command, usually)
	ClassOutside      = "outside"      // it changed between turns: a person, or another agent
	ClassUnattributed = "unattributed" // there is no turn information to tell
)

type kind int

const (
	gap          kind = iota // nobody's turn, or several at once
	turnWindow               // one turn ran from one end to the other, alone
	rewindWindow             // a rewind's own writes, between its safety checkpoint and its result
)

// window is the stretch between two consecutive captures, or between the
// newest capture and the tree now. Its changes are the difference of the
// two trees.
type window struct {
	from, to string // trees
	kind     kind
	// outside marks a gap after the first recorded turn: what changed in
	// it was not shown to be an agent's. Gaps before any turn was recorded
	// tell nothing either way.
	outside bool
	// named lists the paths the tool call ending a turn window named.
	named []string
	// unlike, set on the window after the safety checkpoint of a rewind
	// cut short (killed, a power loss), is the tree that rewind was
	// writing: its writes are its own, not a person's, so a path this
	// window changed counts as outside only where the window's end still
	// differs from unlike.
	unlike string
}

// span is the stretch of journal positions one turn covers: from its first
// record (its start) to its last (its end, or a later write of a
// background subagent).
type span struct{ first, last int }

// windows lists the windows from target (its first record in the journal)
// to current, the tree now; or, when end is set, to end's first record
// from there on, with no window after it. Checkpoints that were pruned are passed over,
// which merges the windows around them; a merged window that spans a turn
// boundary is a gap, so pruning only makes the classes more cautious.
func windows(j *store.Journal, target, end *store.Record, current string) []window {
	// Every record's turn is known without decoding; only the records
	// from the target on are decoded (store.Records).
	recs := j.Records()
	pruned := j.PrunedIDs()
	spans := map[string]*span{}
	firstTurn := -1
	for i := range recs.Len() {
		t := recs.Turn(i)
		if t == "" {
			continue
		}
		if firstTurn < 0 {
			firstTurn = i
		}
		if s := spans[t]; s != nil {
			s.last = i
		} else {
			spans[t] = &span{i, i}
		}
	}
	if end != nil {
		current = end.Tree
	}
	start := recs.Index(target.ID)
	if start < 0 {
		// Not in the journal: everything since is one unknown stretch.
		return []window{{from: target.Tree, to: current, outside: firstTurn >= 0}}
	}
	pos := []int{start}
	// A stretch that ends where it starts has no window.
	for i := start + 1; i < recs.Len() && (end == nil || target.ID != end.ID); i++ {
		id := recs.Get(i).ID
		if !pruned[id] {
			pos = append(pos, i)
		}
		if end != nil && id == end.ID {
			break
		}
	}
	var out []window
	for k := 1; k < len(pos); k++ {
		out = append(out, between(recs, spans, firstTurn, pos[k-1], pos[k], scanned(recs, pos[k-1], pos[k])))
	}
	last := pos[len(pos)-1]
	if end == nil || recs.Get(last).ID != end.ID {
		// From the newest capture to now nobody recorded anything: a gap.
		out = append(out, window{from: recs.Get(last).Tree, to: current, outside: firstTurn >= 0 && last >= firstTurn})
	}
	markCutShort(j, out, recs, pos)
	return out
}

// markCutShort marks each window that begins at the safety checkpoint
// of a rewind that started and never ended (store.Journal.CutShort) with
// the tree it was writing (unlike): what it wrote before it was cut
// short is its own. pos are the records the windows begin at, in order.
func markCutShort(j *store.Journal, ws []window, recs store.Records, pos []int) {
	cut := j.CutShort()
	if len(cut) == 0 {
		return
	}
	for k := range ws { // window k begins at record pos[k]
		if id, ok := cut[recs.Get(pos[k]).ID]; ok {
			if target := j.ByID(id); target != nil {
				ws[k].unlike = target.Tree
			}
		}
	}
}

// scanned is where the changes of the window from record x to record y
// may have been made since. A partial checkpoint brings only the paths its
// tool call named up to date, so a change nobody named is first seen by
// the next full scan, and may have been made at any time since the last
// full scan before it: a window ending at a full scan is classified over
// that whole stretch, so that a change made while turns overlapped is
// never taken for one turn's.
func scanned(recs store.Records, x, y int) int {
	if recs.Get(y).Partial {
		return x // its changes are exactly the paths it named
	}
	for x > 0 && recs.Get(x).Partial {
		x--
	}
	return x
}

// between classifies the window from record x to record y, whose changes
// were made after record f (f <= x, see scanned). It is a turn window when
// exactly one turn was running from f to y and no other turn overlapped
// that stretch.
func between(recs store.Records, spans map[string]*span, firstTurn, x, y, f int) window {
	rx, ry := recs.Get(x), recs.Get(y)
	w := window{from: rx.Tree, to: ry.Tree}
	if y == x+1 && rx.Reason == store.ReasonPreRewind && ry.Reason == store.ReasonRewind {
		w.kind = rewindWindow
		return w
	}
	covering, overlapping := "", 0
	for id, s := range spans {
		if s.first <= f && s.last >= y {
			covering = id
		}
		if s.first < y && s.last > f {
			overlapping++
		}
	}
	if covering != "" && overlapping == 1 {
		w.kind = turnWindow
		if ry.Reason == store.ReasonTool && ry.Turn == covering {
			w.named = ry.Paths
		}
		return w
	}
	w.outside = firstTurn >= 0 && x >= firstTurn
	return w
}

// Classify returns the classifier of a rewind from current (the tree now)
// to target. Without any turn in the journal every path is unattributed
// and git is not asked; otherwise one `git diff-tree --stdin` lists what
// each window changed.
func Classify(ctx context.Context, r *git.Runner, j *store.Journal, target *store.Record, current string) (restore.Classifier, error) {
	return classify(ctx, r, j, target, nil, current)
}

// ClassifyBetween is Classify over the stretch from one checkpoint to a
// later one: whose change each path that changed between them is. A
// reversal (--only, --session) undoes that stretch, so that is where a
// person's edit would be lost.
func ClassifyBetween(ctx context.Context, r *git.Runner, j *store.Journal, from, to *store.Record) (restore.Classifier, error) {
	return classify(ctx, r, j, from, to, "")
}

func classify(ctx context.Context, r *git.Runner, j *store.Journal, target, end *store.Record, current string) (restore.Classifier, error) {
	if !j.HasTurns() {
		return func(string) string { return ClassUnattributed }, nil
	}
	ws := windows(j, target, end, current)
	changed, unlike, err := changes(ctx, r, ws)
	if err != nil {
		return nil, err
	}
	outside, turn, agent := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for i, w := range ws {
		if w.unlike != "" {
			// Only the paths where the window's end is not what the
			// rewind cut short was writing.
			changed[i] = slices.DeleteFunc(changed[i], func(p string) bool { return !unlike[i][p] })
		}
		switch {
		case w.kind == turnWindow:
			for _, p := range changed[i] {
				turn[p] = true
			}
			for _, p := range w.named {
				agent[p] = true
			}
		case w.kind == gap && w.outside:
			for _, p := range changed[i] {
				outside[p] = true
			}
		}
	}
	return func(p string) string {
		switch {
		case outside[p]:
			return ClassOutside
		case agent[p]:
			return ClassAgent
		case turn[p]:
			return ClassTurn
		}
		return ClassUnattributed
	}, nil
}

// changes lists, for each window that can decide a class, the paths its
// two trees differ in, and, for a window with unlike, the paths where its
// end differs from unlike, with one git process for all of them.
func changes(ctx context.Context, r *git.Runner, ws []window) (changed [][]string, unlike []map[string]bool, err error) {
	changed, unlike = make([][]string, len(ws)), make([]map[string]bool, len(ws))
	var pairs []git.TreePair
	type ask struct {
		i      int
		unlike bool
	}
	var asked []ask
	for i, w := range ws {
		if w.from == w.to || w.from == "" || w.to == "" || (w.kind != turnWindow && !w.outside) {
			continue
		}
		pairs = append(pairs, git.TreePair{From: w.from, To: w.to})
		asked = append(asked, ask{i, false})
		if w.unlike != "" {
			pairs = append(pairs, git.TreePair{From: w.unlike, To: w.to})
			asked = append(asked, ask{i, true})
		}
	}
	if len(asked) == 0 {
		return changed, unlike, nil
	}
	res, err := r.DiffTrees(ctx, pairs, git.DiffTreeOptions{Format: git.DiffNameOnly})
	if err != nil {
		return nil, nil, err
	}
	for k, entries := range res {
		a := asked[k]
		if a.unlike && unlike[a.i] == nil {
			unlike[a.i] = map[string]bool{}
		}
		for _, e := range entries {
			if a.unlike {
				unlike[a.i][e.Path] = true
			} else {
				changed[a.i] = append(changed[a.i], e.Path)
			}
		}
	}
	return changed, unlike, nil
}

// ClassifyLocal is the classifier of a rewind to a fetched store's
// checkpoint: no turn of this tree made its files, so every path that
// differs here from head (this tree's HEAD, "" when unborn) is a local
// change, a person's (outside), and the others are as committed here,
// nothing of this machine's to lose (unattributed).
func ClassifyLocal(ctx context.Context, r *git.Runner, head, current string) (restore.Classifier, error) {
	var err error
	if head == "" {
		if head, err = r.WriteEmptyTree(ctx); err != nil {
			return nil, err
		}
	}
	entries, err := r.DiffTree(ctx, head, current, git.DiffTreeOptions{Format: git.DiffNameOnly})
	if err != nil {
		return nil, err
	}
	local := map[string]bool{}
	for _, e := range entries {
		local[e.Path] = true
	}
	return func(p string) string {
		if local[p] {
			return ClassOutside
		}
		return ClassUnattributed
	}, nil
}

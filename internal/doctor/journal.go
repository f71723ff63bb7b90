package doctor

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/restore"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// checkJournal compares the journal with the refs without repairing
// either: what doctor reports is what it found.
func (d *Doctor) checkJournal(ctx context.Context) ([]Check, error) {
	j, err := d.Store.Journal()
	if err != nil {
		return nil, err
	}
	refs, err := d.Store.Refs(ctx)
	if err != nil {
		return nil, err
	}
	const repair = "git checkpoint doctor --fix (every other command also does this)"
	var cs []Check
	for _, p := range j.Problems() {
		cs = append(cs, Check{Name: "journal", Message: "journal: " + p,
			Fix: repair + "; it rebuilds the journal from what is readable and the refs, keeping the damaged file aside"})
	}
	if j.Missing && len(refs) > 0 {
		cs = append(cs, Check{Name: "journal", Message: fmt.Sprintf("journal: missing, while %d checkpoint %s exist", len(refs), fault.Plural(len(refs), "ref", "refs")),
			Fix: repair + "; it rebuilds the journal from the refs and their commits' trailers"})
	}
	known := map[int]bool{}
	var gone []*store.Record
	for _, r := range j.Checkpoints() {
		known[r.N] = true
		if !refs.Live(r) && !(refs[r.N] == "" && j.Pruned(r.ID)) {
			gone = append(gone, r)
		}
	}
	var orphans []int
	for n := range refs {
		if !known[n] {
			orphans = append(orphans, n)
		}
	}
	slices.Sort(orphans)
	for _, n := range orphans {
		cs = append(cs, Check{Name: "refs", Message: fmt.Sprintf("%s has no record in the journal (a run stopped between the two)", d.Store.Ref(n)),
			Fix: repair + "; it adopts the checkpoint from its commit's trailers"})
	}
	have, err := d.haveObjects(ctx, gone)
	if err != nil {
		return nil, err
	}
	for _, r := range gone {
		ref, now := d.Store.Ref(r.N), refs[r.N]
		ch := Check{Name: "refs"}
		switch {
		case now == "" && have[r.Commit]:
			ch.Message = fmt.Sprintf("checkpoint %s is gone: its ref %s was deleted", r.ID, ref)
			ch.Fix = fmt.Sprintf("put it back with 'git update-ref %s %s \"\"', or forget it with 'git checkpoint prune'", ref, r.Commit)
		case now == "":
			ch.Message = fmt.Sprintf("checkpoint %s is gone: its ref %s was deleted and its commit is no longer in the repository", r.ID, ref)
			ch.Fix = "forget it with 'git checkpoint prune'"
		case have[r.Commit]:
			ch.Message = fmt.Sprintf("checkpoint %s is gone: its ref %s points at %s, not at its commit %s", r.ID, ref, fault.Short(now), fault.Short(r.Commit))
			ch.Fix = fmt.Sprintf("put it back with 'git update-ref %s %s %s'", ref, r.Commit, now)
		default:
			ch.Message = fmt.Sprintf("checkpoint %s is gone: its ref %s points at %s, and its commit %s is no longer in the repository", r.ID, ref, fault.Short(now), fault.Short(r.Commit))
			ch.Fix = fmt.Sprintf("remove the ref with 'git update-ref -d %s %s', then forget it with 'git checkpoint prune'", ref, now)
		}
		cs = append(cs, ch)
	}
	if cut, left := store.CutShortPrune(j, refs); cut {
		cs = append(cs, d.cutShortPrune(left))
	}
	for _, a := range d.Store.Aside() {
		cs = append(cs, Check{Name: "journal", Message: "a damaged journal was kept aside when the journal was rebuilt: " + a,
			Fix: "compare it with the journal (nothing in it was dropped that parsed), then remove it: rm " + fault.ShellQuote(a)})
	}
	if len(cs) == 0 {
		n := len(j.Checkpoints())
		cs = append(cs, Check{Name: "journal", OK: true, Message: fmt.Sprintf("journal: %d %s, every line chained, every ref recorded", n, fault.Plural(n, "checkpoint", "checkpoints"))})
	}
	return cs, nil
}

// haveObjects says which of the records' commits are still in the
// repository, in one git call.
func (d *Doctor) haveObjects(ctx context.Context, recs []*store.Record) (map[string]bool, error) {
	have := map[string]bool{}
	if len(recs) == 0 {
		return have, nil
	}
	var in strings.Builder
	for _, r := range recs {
		in.WriteString(r.Commit + "\n")
	}
	out, err := d.Git.Run(ctx, git.Cmd{Args: []string{"cat-file", "--batch-check=%(objectname) %(objecttype)"}, Stdin: []byte(in.String())})
	if err != nil {
		return nil, err
	}
	for _, line := range strings.Split(string(out), "\n") {
		if oid, typ, ok := strings.Cut(line, " "); ok && typ == "commit" {
			have[oid] = true
		}
	}
	return have, nil
}

func (d *Doctor) checkRewind(ctx context.Context) ([]Check, error) {
	j, err := d.Store.Journal()
	if err != nil {
		return nil, err
	}
	var cs []Check
	if started, ended := j.LastRewind(); started != nil && !ended {
		cs = append(cs, Check{Name: "rewind", Message: fmt.Sprintf("a rewind to %s was interrupted; files may be part old, part new", started.Target),
			Fix: "git rewind --undo (back to safety checkpoint " + started.Safety + "), or look first with 'git rewind --undo --dry-run'"})
	}
	stale, err := restore.StaleStaging(d.Store.Path("staging"))
	if err != nil {
		return nil, fault.Wrap(err, fault.FailedIO, "cannot read the staging directory")
	}
	if len(stale) > 0 {
		cs = append(cs, Check{Name: "staging", Message: fmt.Sprintf("%d staging %s left by a killed rewind or a removal cut short in %s", len(stale), fault.Plural(len(stale), "entry", "entries"), d.Store.Path("staging")),
			Fix: "git checkpoint doctor --fix (the next rewind also removes them)"})
	}
	if len(cs) == 0 {
		cs = append(cs, Check{Name: "rewind", OK: true, Message: "rewinds: none interrupted"})
	}
	return cs, nil
}

// cutShortPrune is the report of a prune cut short after it journaled
// what it pruned (store.CutShortPrune): --fix finishes it. Only the
// prune's compaction left is a problem too, a small one: until it is
// done the journal keeps the pruned records. Refs whose locks are young
// are no problem yet: a git may hold them (a command killed moments
// ago), as a young lock is none (checkLocks).
func (d *Doctor) cutShortPrune(left []*store.Record) Check {
	const fix = "git checkpoint doctor --fix (or the next prune) finishes it"
	var free, locked []*store.Record
	for _, r := range left {
		if d.Store.RefLocked(r.N) {
			locked = append(locked, r)
		} else {
			free = append(free, r)
		}
	}
	switch {
	case len(left) == 0:
		return Check{Name: "prune", Message: "prune: a prune was cut short before it compacted the journal", Fix: fix}
	case len(free) == 0:
		return Check{Name: "prune", OK: true, Message: fmt.Sprintf("prune: a prune cut short waits for git's locks on the %s of %s (%s, or packed-refs.lock), which a git may still hold; doctor --fix (or the next prune) finishes it once they are gone or old",
			fault.Plural(len(locked), "ref", "refs"), recordIDs(locked), fault.Plural(len(locked), "its own", "their own"))}
	}
	return Check{Name: "prune", Message: fmt.Sprintf("prune: a prune was cut short: %s %d %s it pruned %s still there (%s)",
		fault.Plural(len(left), "the ref of", "the refs of"), len(left), fault.Plural(len(left), "checkpoint", "checkpoints"),
		fault.Plural(len(left), "is", "are"), recordIDs(left)), Fix: fix}
}

func recordIDs(recs []*store.Record) string {
	ids := make([]string, len(recs))
	for i, r := range recs {
		ids[i] = r.ID
	}
	return strings.Join(ids, " ")
}

// finishPrune finishes a prune cut short (store.FinishPrune) and says so.
func (d *Doctor) finishPrune(ctx context.Context, j *store.Journal) ([]string, error) {
	refs, err := d.Store.Refs(ctx)
	if err != nil {
		return nil, err
	}
	if cut, _ := store.CutShortPrune(j, refs); !cut {
		return nil, nil
	}
	deleted, locked, err := d.Store.FinishPrune(ctx, j, refs)
	if err != nil {
		return nil, err
	}
	refsOf := func(recs []*store.Record) string {
		return fault.Plural(len(recs), "the ref of ", "the refs of ") + recordIDs(recs)
	}
	switch {
	case len(locked) > 0 && len(deleted) > 0:
		return []string{fmt.Sprintf("finished part of a prune cut short: deleted %s; %s %s locked by a git still running (or killed moments ago): run doctor --fix again once it is done",
			refsOf(deleted), refsOf(locked), fault.Plural(len(locked), "is", "are"))}, nil
	case len(locked) > 0:
		return []string{fmt.Sprintf("left a prune cut short: %s %s locked by a git still running (or killed moments ago): run doctor --fix again once it is done",
			refsOf(locked), fault.Plural(len(locked), "is", "are"))}, nil
	case len(deleted) > 0:
		return []string{fmt.Sprintf("finished a prune cut short: deleted %s, compacted the journal", refsOf(deleted))}, nil
	}
	return []string{"finished a prune cut short: compacted the journal"}, nil
}

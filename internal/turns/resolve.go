package turns

import (
	"regexp"
	"strings"
	"sync"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// The patterns are compiled when first used, not when the program
// starts: every hook call pays for what init does.
var (
	idPattern  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[kt][1-9][0-9]{0,17}$`) })
	hexPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{4,64}$`) })
	// numbered is the syntax of k<n> and t<n>: a well-formed id that
	// names nothing (k0, k99999999999999999999) is not_found, while one
	// that is no id at all (kx, k-1, ../x) is a usage error.
	numbered = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[kt][0-9]+$`) })
)

// errBadID is an argument that has no checkpoint id's syntax.
func errBadID(id string) error {
	return fault.New(fault.InvalidCheckpointID, "%s is not a checkpoint id", fault.Quote(id)).
		WithHint("ids are k<n>, t<n>, @ or a checkpoint commit (4 or more hex digits); list them with 'git checkpoint list'").
		WithData(map[string]string{"id": id})
}

// Resolve finds the checkpoint an id names: k<n>, t<n> (the start of turn
// n), @ (the newest), or a unique prefix of a checkpoint commit. The
// checkpoint's ref must still point at its commit: a moved or deleted ref
// makes the id not_found rather than trusting either side.
func Resolve(j *store.Journal, refs store.Refs, id string) (*store.Record, error) {
	if id != "@" && !numbered().MatchString(id) && !hexPattern().MatchString(strings.ToLower(id)) {
		return nil, errBadID(id)
	}
	var r *store.Record
	switch {
	case id == "@":
		for _, c := range j.Checkpoints() {
			if refs.Live(c) {
				r = c
			}
		}
	case idPattern().MatchString(id) && id[0] == 'k':
		r = j.ByID(id)
	case idPattern().MatchString(id) && id[0] == 't':
		r = turnStart(j, id)
	case hexPattern().MatchString(strings.ToLower(id)):
		var found []*store.Record
		for _, c := range j.Checkpoints() {
			if strings.HasPrefix(c.Commit, strings.ToLower(id)) {
				found = append(found, c)
			}
		}
		if len(found) > 1 {
			return nil, fault.New(fault.InvalidAmbiguousID, "%s names %d checkpoints", fault.Quote(id), len(found)).
				WithHint("give more digits of the commit, or use its k<n> id")
		}
		if len(found) == 1 {
			r = found[0]
		}
	}
	if r == nil && j.Pruned(id) {
		return nil, fault.New(fault.NotFoundCheckpoint, "checkpoint %s was pruned", id).
			WithHint("retention (checkpoint.keep, keepFor, keepSafety) removed it; list the others with 'git checkpoint list'").
			WithData(map[string]string{"id": id})
	}
	if r == nil {
		return nil, fault.New(fault.NotFoundCheckpoint, "no checkpoint %s", fault.Quote(id)).
			WithHint("ids are k<n>, t<n>, @ or a checkpoint commit; list them with 'git checkpoint list'").
			WithData(map[string]string{"id": id})
	}
	if !refs.Live(r) {
		what := "was deleted"
		if refs[r.N] != "" {
			what = "points elsewhere"
		}
		return nil, fault.New(fault.NotFoundCheckpoint, "checkpoint %s is gone: its ref %s", r.ID, what).
			WithHint("'git checkpoint doctor' explains; other checkpoints are not affected").
			WithData(map[string]string{"id": r.ID, "commit": r.Commit})
	}
	return r, nil
}

// turnStart returns the checkpoint taken at the start of turn id.
func turnStart(j *store.Journal, id string) *store.Record {
	var first *store.Record
	recs := j.Records()
	for i := range recs.Len() {
		if recs.Turn(i) != id {
			continue // known without decoding the record
		}
		c := recs.Get(i)
		if c.Reason == store.ReasonTurnStart {
			return j.ByID(c.ID)
		}
		if first == nil {
			first = j.ByID(c.ID)
		}
	}
	return first
}

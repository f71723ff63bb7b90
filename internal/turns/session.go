package turns

import (
	"slices"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// MatchSession finds the session s names: a session id of the journal, or
// the unique one it is a prefix of (agents' ids are long uuids, which
// nobody types whole). An exact id wins over longer ones it starts.
func MatchSession(j *store.Journal, s string) (string, error) {
	var found []string
	for _, ev := range j.All() {
		c := ev.Checkpoint
		if c == nil || c.Session == "" || slices.Contains(found, c.Session) {
			continue
		}
		if c.Session == s {
			return s, nil
		}
		if s != "" && strings.HasPrefix(c.Session, s) {
			found = append(found, c.Session)
		}
	}
	switch {
	case len(found) > 1:
		return "", fault.New(fault.InvalidAmbiguousID, "%s is the start of %d sessions", fault.Quote(s), len(found)).
			WithHint("give more of its id; 'git checkpoint list' shows the sessions").
			WithData(map[string]any{"session": s, "sessions": found})
	case len(found) == 0:
		return "", fault.New(fault.NotFoundCheckpoint, "no session %s", fault.Quote(s)).
			WithHint("'git checkpoint list' shows the sessions of the checkpoints").
			WithData(map[string]string{"session": s})
	}
	return found[0], nil
}

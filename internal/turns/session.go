package turns

import (
	"slices"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// MatchSession finds the session a person means by s: a session id the
// journal records, or a unique prefix of one (sessions are long ids, and
// the lists print their first eight characters). It returns "" when no
// session matches, and an error when the prefix names several, so that a
// filter never quietly takes one of them for the person.
func MatchSession(j *store.Journal, s string) (string, error) {
	if s == "" {
		return "", nil
	}
	var found []string
	for _, ev := range j.All() {
		c := ev.Checkpoint
		if c == nil || c.Session == "" {
			continue
		}
		if c.Session == s {
			return s, nil
		}
		if strings.HasPrefix(c.Session, s) && !slices.Contains(found, c.Session) {
			found = append(found, c.Session)
		}
	}
	switch len(found) {
	case 0:
		return "", nil
	case 1:
		return found[0], nil
	}
	return "", fault.New(fault.InvalidAmbiguousSession, "%s names %d sessions", fault.Quote(s), len(found)).
		WithHint("give more of the session id: " + strings.Join(found, ", ")).
		WithData(map[string]any{"session": s, "sessions": found})
}

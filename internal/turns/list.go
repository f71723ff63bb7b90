package turns

import (
	"slices"

	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// ListDocument is the checkpoints as `git checkpoint list --json` prints
// them, {"checkpoints": [record, ...]}, newest first; the MCP server's
// list_checkpoints answers with the same document.
type ListDocument struct {
	Checkpoints []*store.Record `json:"checkpoints"`
}

// List picks the checkpoints a list shows, newest first: at most n of them
// (every one when n is 0), only a session's when session is set (an id or
// a unique prefix, as MatchSession takes it; one that matches no session
// lists none), and none whose ref is gone after a prune that named it (a
// ref gone otherwise is shown, marked, since that is damage to see).
func List(j *store.Journal, refs store.Refs, session string, n int) (ListDocument, error) {
	doc := ListDocument{Checkpoints: []*store.Record{}}
	if session != "" {
		match, err := MatchSession(j, session)
		if err != nil || match == "" {
			return doc, err
		}
		session = match
	}
	for _, r := range slices.Backward(j.Checkpoints()) {
		if !refs.Live(r) && j.Pruned(r.ID) {
			continue
		}
		if session != "" && r.Session != session {
			continue
		}
		if n > 0 && len(doc.Checkpoints) == n {
			break
		}
		doc.Checkpoints = append(doc.Checkpoints, r)
	}
	return doc, nil
}

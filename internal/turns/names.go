package turns

import (
	"slices"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// Name is an id a person can type, with what they would know it by: a
// checkpoint's label, a turn's prompt. Shell completion offers them.
type Name struct {
	ID    string
	About string
}

// CheckpointNames lists the ids that name a checkpoint a command can use
// now: @, the turns newest first (what people go back to), then the
// checkpoints newest first. Checkpoints whose ref is gone or moved are
// left out, as are turns whose start is: an id that is offered works.
// It reads the journal and the refs given, never the working tree.
func CheckpointNames(j *store.Journal, refs store.Refs) []Name {
	live := func(r *store.Record) bool { return r != nil && refs.Live(r) }
	recs := j.Checkpoints()
	if !slices.ContainsFunc(recs, live) {
		return nil
	}
	out := []Name{{ID: "@", About: "the newest checkpoint"}}
	for _, n := range TurnNames(j) {
		if r := turnStart(j, n.ID); live(r) {
			out = append(out, n)
		}
	}
	starts := Starts(j)
	for _, r := range slices.Backward(recs) {
		if live(r) {
			out = append(out, Name{ID: r.ID, About: aboutCheckpoint(r, starts)})
		}
	}
	return out
}

// TurnNames lists the turns newest first, each with its agent and the
// first line of its prompt.
func TurnNames(j *store.Journal) []Name {
	var out []Name
	for _, t := range slices.Backward(History(j)) {
		out = append(out, Name{ID: t.ID, About: aboutTurn(t)})
	}
	return out
}

// SessionNames lists the agent sessions, the most recently active first,
// each with its agent and the prompt of its latest turn.
func SessionNames(j *store.Journal) []Name {
	var out []Name
	seen := map[string]bool{}
	for _, t := range slices.Backward(History(j)) {
		if t.Session == "" || seen[t.Session] {
			continue
		}
		seen[t.Session] = true
		out = append(out, Name{ID: t.Session, About: aboutTurn(t)})
	}
	return out
}

// aboutCheckpoint says why a checkpoint was taken and what it is known
// by: "turn_start t3: fix the login bug", "manual: before the refactor".
func aboutCheckpoint(r *store.Record, starts map[string]Turn) string {
	what := strings.TrimSpace(r.Reason + " " + r.Turn)
	text := r.Label
	if t, ok := starts[r.ID]; ok && text == "" {
		text = FirstLine(t.Prompt)
		if t.ID != r.Turn {
			what = strings.TrimSpace(r.Reason + " " + t.ID)
		}
	}
	return joinAbout(what, text)
}

// aboutTurn is "claude: fix the login bug", or the agent alone when the
// prompt was not recorded.
func aboutTurn(t Turn) string {
	who := t.Agent
	if who == "" {
		who = "turn"
	}
	return joinAbout(who, FirstLine(t.Prompt))
}

func joinAbout(what, text string) string {
	text = strings.Join(strings.Fields(text), " ")
	if text == "" {
		return what
	}
	return what + ": " + text
}

package turns

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// turnJSON is a turn as `git checkpoint log --json` prints it. Every key is
// always there: a running turn's ended_at and end are null, and so are the
// changes of a turn whose start or end was pruned.
type turnJSON struct {
	ID        string         `json:"id"`
	Session   string         `json:"session"`
	Agent     string         `json:"agent"`
	Prompt    string         `json:"prompt"`
	StartedAt time.Time      `json:"started_at"`
	EndedAt   *time.Time     `json:"ended_at"`
	Start     *string        `json:"start"`
	End       *string        `json:"end"`
	Running   bool           `json:"running"`
	Changes   *store.Changes `json:"changes"`
	Files     []File         `json:"files"`
	// MCPRewindTurned is "on" or "off" when checkpoint.mcpRewind changed
	// during the turn (store.SwitchChanged).
	MCPRewindTurned string `json:"mcp_rewind_turned,omitempty"`
}

// MarshalJSON writes a turn entry as a turn object and a checkpoint entry
// as the checkpoint's record, as `git checkpoint list --json` does, with
// "by" when the model applied the rewind it ended.
func (e Entry) MarshalJSON() ([]byte, error) {
	if e.Turn == nil && e.By != "" {
		return encode(struct {
			*store.Record
			By string `json:"by"`
		}{e.Checkpoint, e.By})
	}
	if e.Turn == nil {
		return encode(e.Checkpoint)
	}
	t := e.Turn
	v := turnJSON{ID: t.ID, Session: t.Session, Agent: t.Agent, Prompt: t.Prompt,
		StartedAt: t.StartedAt.UTC(), Start: idOf(t.Start), End: idOf(t.End), Running: e.Running, Changes: e.Changes, Files: e.Files}
	if on, changed := store.SwitchChanged(t.SwitchAtStart, t.SwitchAtEnd); changed {
		v.MCPRewindTurned = map[bool]string{true: "on", false: "off"}[on]
	}
	if !t.EndedAt.IsZero() {
		at := t.EndedAt.UTC()
		v.EndedAt = &at
	}
	if v.Files == nil {
		v.Files = []File{}
	}
	return encode(v)
}

// encode is json.Marshal leaving &, < and > as they are, as every JSON
// output of the tool does: the outer encoder does not undo what a
// MarshalJSON wrote, and a prompt would no longer read as it was typed.
func encode(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSpace(b.Bytes()), nil
}

// Document is the log as `git checkpoint log --json` prints it:
// {"turns": [...], "checkpoints": [...]}, each newest first; the
// checkpoints are those taken outside turns, between the turns listed.
func Document(entries []Entry) map[string]any {
	turns, checkpoints := []Entry{}, []Entry{}
	for _, e := range entries {
		if e.Turn != nil {
			turns = append(turns, e)
		} else {
			checkpoints = append(checkpoints, e)
		}
	}
	return map[string]any{"turns": turns, "checkpoints": checkpoints}
}

func idOf(r *store.Record) *string {
	if r == nil {
		return nil
	}
	return &r.ID
}

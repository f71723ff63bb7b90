package agents

import (
	"strconv"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// history builds a journal from "id reason session transcriptAt agent"
// tuples; a repeated id is a reuse record.
func history(recs ...[5]string) *store.Journal {
	var events []store.Event
	seen := map[string]bool{}
	for _, r := range recs {
		n, _ := strconv.Atoi(r[0][1:])
		events = append(events, store.Event{Type: store.EventCheckpoint, Checkpoint: &store.Record{
			ID: r[0], N: n, Reason: r[1], Session: r[2], TranscriptAt: r[3], Agent: r[4], Reused: seen[r[0]]}})
		seen[r[0]] = true
	}
	return store.NewJournal(events...)
}

func TestResumeAt(t *testing.T) {
	j := history(
		[5]string{"k1", "turn_start", "S", "", Claude},
		[5]string{"k2", "tool", "S", "", Claude},
		[5]string{"k2", "turn_end", "S", "u-end-1", Claude}, // reused at Stop
		[5]string{"k2", "turn_start", "S", "", Claude},      // and at the next prompt
		[5]string{"k3", "turn_end", "S", "u-end-2", Claude},
		[5]string{"k4", "manual", "", "", ""},
	)
	want := map[string]string{
		"k1": "",
		"k2": "claude --resume S --resume-session-at u-end-1 --fork-session",
		"k3": "claude --resume S --resume-session-at u-end-2 --fork-session",
		"k4": "claude --resume S --resume-session-at u-end-2 --fork-session",
	}
	for id, cmd := range want {
		r := ResumeAt(j, j.ByID(id))
		got := ""
		if r != nil {
			got = r.Command
		}
		if got != cmd {
			t.Errorf("ResumeAt(%s) = %q, want %q", id, got, cmd)
		}
	}
}

func TestResumeCodexOnlyWhenFaithful(t *testing.T) {
	j := history(
		[5]string{"k1", "turn_start", "T", "", Codex},
		[5]string{"k2", "turn_end", "T", "", Codex},
		[5]string{"k3", "turn_start", "T", "", Codex},
		[5]string{"k4", "turn_end", "T", "", Codex},
	)
	if r := ResumeAt(j, j.ByID("k2")); r != nil {
		t.Errorf("codex fork would hold turn k3..k4: %+v", r)
	}
	if r := ResumeAt(j, j.ByID("k4")); r == nil || r.Command != "codex fork T" {
		t.Errorf("ResumeAt(k4) = %+v", r)
	}
	g := history([5]string{"k1", "turn_end", "G", "", Gemini})
	if r := ResumeAt(g, g.ByID("k1")); r != nil {
		t.Errorf("gemini: %+v", r)
	}
	q := history([5]string{"k1", "turn_end", "it's", "u'1", Claude})
	if r := ResumeAt(q, q.ByID("k1")); r == nil || r.Command != `claude --resume 'it'\''s' --resume-session-at 'u'\''1' --fork-session` {
		t.Errorf("quoting: %+v", r)
	}
}

// TestResumeOpenCodeOnlyWhenFaithful: OpenCode forks whole sessions, so
// only the end of a session's last turn is resumed.
func TestResumeOpenCodeOnlyWhenFaithful(t *testing.T) {
	j := history(
		[5]string{"k1", "turn_start", "ses_1", "", OpenCode},
		[5]string{"k2", "turn_end", "ses_1", "", OpenCode},
		[5]string{"k3", "turn_start", "ses_1", "", OpenCode},
		[5]string{"k4", "turn_end", "ses_1", "", OpenCode},
	)
	if r := ResumeAt(j, j.ByID("k2")); r != nil {
		t.Errorf("a fork would hold turn k3..k4: %+v", r)
	}
	if r := ResumeAt(j, j.ByID("k4")); r == nil || r.Command != "opencode --session ses_1 --fork" {
		t.Errorf("ResumeAt(k4) = %+v", r)
	}
}

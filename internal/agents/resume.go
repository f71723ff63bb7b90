package agents

import (
	"regexp"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// Resume is the command that continues an agent's conversation as it was
// at a checkpoint, leaving the original conversation as it is.
type Resume struct {
	Agent   string `json:"agent"`
	Command string `json:"command"`
}

// ResumeAt returns how to resume the conversation at target, or nil when
// there is none or the agent offers no way to do it faithfully:
//   - Claude Code forks a session at any transcript line:
//     `claude --resume S --resume-session-at U --fork-session`, where U is
//     the last line of the turn that ended at or before target.
//   - Codex forks a whole session (`codex fork S`), which is faithful only
//     when no later turn of that session started.
//   - Gemini CLI resumes a session only by appending to it, which would
//     change the original: nothing is offered.
func ResumeAt(j *store.Journal, target *store.Record) *Resume {
	// The last record naming the target: a checkpoint is reused while
	// the files stay the same (across a Stop and the next prompt, say),
	// and the conversation is resumed at the latest point that matches
	// them.
	var recs []*store.Record
	at := -1
	for _, ev := range j.All() {
		if c := ev.Checkpoint; c != nil {
			if c.ID == target.ID {
				at = len(recs)
			}
			recs = append(recs, c)
		}
	}
	if at < 0 {
		return nil
	}
	resumable := func(r *store.Record) bool {
		return r.Session != "" && (r.Agent == Claude || r.Agent == Codex)
	}
	// The conversation of the checkpoint's own session, else of the
	// newest session before it.
	var session *store.Record
	for i := at; i >= 0 && session == nil; i-- {
		if resumable(recs[i]) {
			session = recs[i]
		}
	}
	if session == nil {
		return nil
	}
	end := -1
	for i := at; i >= 0; i-- {
		if recs[i].Session == session.Session && recs[i].Reason == store.ReasonTurnEnd {
			end = i
			break
		}
	}
	if end < 0 {
		return nil // the session's first turn had not ended: nothing to resume
	}
	switch session.Agent {
	case Claude:
		if recs[end].TranscriptAt == "" {
			return nil
		}
		return &Resume{Agent: Claude, Command: "claude --resume " + shellWord(session.Session) +
			" --resume-session-at " + shellWord(recs[end].TranscriptAt) + " --fork-session"}
	case Codex:
		for _, r := range recs[end+1:] {
			if r.Session == session.Session && r.Reason == store.ReasonTurnStart {
				return nil
			}
		}
		return &Resume{Agent: Codex, Command: "codex fork " + shellWord(session.Session)}
	}
	return nil
}

// shellWord quotes s for a POSIX shell unless it is plainly safe. Session
// ids come from hook input, so they are never printed unquoted.
func shellWord(s string) string {
	if regexp.MustCompile(`^[A-Za-z0-9._:-]+$`).MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

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
	// Session is the session the command continues.
	Session string `json:"-"`
}

// ResumeAt returns how to resume the conversation at target, or nil when
// there is none or the agent offers no way to do it faithfully (see each
// agent's resume): the point to continue from is the last turn that ended
// at or before target.
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
		a, _ := Lookup(r.Agent)
		return r.Session != "" && a.resume != nil
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
	a, _ := Lookup(session.Agent)
	res := a.resume(recs, end)
	if res != nil {
		res.Session = session.Session
	}
	return res
}

// shellWord quotes s for a POSIX shell unless it is plainly safe. Session
// ids come from hook input, so they are never printed unquoted.
func shellWord(s string) string {
	if regexp.MustCompile(`^[A-Za-z0-9._:-]+$`).MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

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
	// them. Each record's session and agent are known without decoding
	// it (store.Records): only the records of the session to resume are.
	recs := j.Records()
	at := -1
	for i := recs.Len() - 1; i >= 0 && at < 0; i-- {
		if recs.Is(i, target.ID) {
			at = i
		}
	}
	if at < 0 {
		return nil
	}
	resumable := func(i int) bool {
		a, _ := Lookup(recs.Agent(i))
		return recs.Session(i) != "" && a.resume != nil
	}
	// The conversation of the checkpoint's own session, else of the
	// newest session before it.
	session := -1
	for i := at; i >= 0 && session < 0; i-- {
		if resumable(i) {
			session = i
		}
	}
	if session < 0 {
		return nil
	}
	end := -1
	for i := at; i >= 0; i-- {
		if recs.Session(i) == recs.Session(session) && recs.Get(i).Reason == store.ReasonTurnEnd {
			end = i
			break
		}
	}
	if end < 0 {
		return nil // the session's first turn had not ended: nothing to resume
	}
	a, _ := Lookup(recs.Agent(session))
	res := a.resume(recs, end)
	if res != nil {
		res.Session = recs.Session(session)
	}
	return res
}

// startedAfter reports whether a turn of record end's session started
// after it: forking the whole session is then not faithful to end.
func startedAfter(recs store.Records, end int) bool {
	for i := end + 1; i < recs.Len(); i++ {
		if recs.Session(i) == recs.Session(end) && recs.Get(i).Reason == store.ReasonTurnStart {
			return true
		}
	}
	return false
}

// shellWord quotes s for a POSIX shell unless it is plainly safe. Session
// ids come from hook input, so they are never printed unquoted.
func shellWord(s string) string {
	if regexp.MustCompile(`^[A-Za-z0-9._:-]+$`).MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

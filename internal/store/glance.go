package store

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/git-checkpoint/git-checkpoint/internal/jsontext"
)

// The cheap look at a journal line relies on the shape json.Marshal gives
// an Event: "type" is its first key and "prev" its last, and a checkpoint
// record has exactly one "n", "turn", "session", "agent" and "reused" key
// (no other type an Event holds has keys of those names). Inside a JSON string every
// quote is escaped, so a quoted key followed by a colon is always a key.
// A line of another shape is decoded instead.

// prevOf returns the prev field that ends an Event line: "" or 16 hex
// digits.
func prevOf(raw []byte) (string, bool) {
	const key = `"prev":"`
	if !bytes.HasSuffix(raw, []byte(`"}`)) {
		return "", false
	}
	i := bytes.LastIndex(raw, []byte(key))
	if i < 0 || i+len(key) > len(raw)-2 {
		return "", false
	}
	v := raw[i+len(key) : len(raw)-2]
	if len(v) != 0 && len(v) != 16 {
		return "", false
	}
	for _, c := range v {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return "", false
		}
	}
	return string(v), true
}

// glance notes the line's type and, for a checkpoint, its number, turn,
// session, agent and reuse, from its bytes; a line it cannot read that way is
// decoded. It reports false when the line does not decode either.
func (l *line) glance() bool {
	typ, ok := stringAt(l.raw, `{"type":"`, true)
	if ok && typ != "" && typ != EventCheckpoint && typ != EventCompacted {
		l.typ = typ
		return true
	}
	if c := bytes.Index(l.raw, []byte(`"checkpoint":{`)); ok && typ == EventCheckpoint && c > 0 {
		rec := l.raw[c:]
		n, ok1 := intAfter(rec, `"n":`)
		turn, ok2 := stringAt(rec, `"turn":"`, false)
		session, ok3 := stringAt(rec, `"session":"`, false)
		agent, ok4 := stringAt(rec, `"agent":"`, false)
		reused, ok5 := boolAfter(rec, `"reused":`)
		if ok1 && ok2 && ok3 && ok4 && ok5 {
			l.typ, l.n, l.turn, l.session, l.agent, l.reused = typ, n, turn, session, agent, reused
			return true
		}
	}
	ev, err := l.decode()
	return err == nil && ev.Type != "" && (ev.Type != EventCheckpoint || ev.Checkpoint != nil)
}

// decode decodes the line once, and notes what glance would.
func (l *line) decode() (*Event, error) {
	if l.ev != nil {
		return l.ev, nil
	}
	var ev Event
	if err := json.Unmarshal(l.raw, &ev); err != nil {
		return nil, err
	}
	l.ev = &ev
	l.note()
	return l.ev, nil
}

// note sets what glance finds from the decoded event.
func (l *line) note() {
	l.typ = l.ev.Type
	if c := l.ev.Checkpoint; c != nil {
		l.n, l.turn, l.session, l.agent, l.reused = c.N, c.Turn, c.Session, c.Agent, c.Reused
	}
	if c := l.ev.Compacted; c != nil && l.typ == EventCompacted {
		l.n, l.turn = c.MaxN, c.MaxTurn
	}
}

// stringAt returns the string value after key (which ends with the opening
// quote), at the start of raw when first is set, else anywhere; a value
// with an escape is refused (jsontext.StringAfter).
func stringAt(raw []byte, key string, first bool) (string, bool) {
	if !first {
		i := bytes.Index(raw, []byte(key))
		if i < 0 {
			return "", false
		}
		raw = raw[i:]
	}
	v, _, ok := jsontext.StringAfter(raw, key)
	return v, ok
}

// intAfter returns the number after key.
func intAfter(raw []byte, key string) (int, bool) {
	i := bytes.Index(raw, []byte(key))
	if i < 0 {
		return 0, false
	}
	rest := raw[i+len(key):]
	end := 0
	for end < len(rest) && rest[end] >= '0' && rest[end] <= '9' {
		end++
	}
	if end == 0 || end > 9 || (end < len(rest) && rest[end] != ',' && rest[end] != '}') {
		return 0, false
	}
	n, err := strconv.Atoi(string(rest[:end]))
	return n, err == nil
}

// boolAfter returns the boolean after key.
func boolAfter(raw []byte, key string) (bool, bool) {
	i := bytes.Index(raw, []byte(key))
	if i < 0 {
		return false, false
	}
	rest := raw[i+len(key):]
	switch {
	case bytes.HasPrefix(rest, []byte("true")):
		return true, true
	case bytes.HasPrefix(rest, []byte("false")):
		return false, true
	}
	return false, false
}

package secrets

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// Marker is what replaces a secret in a redacted transcript: the rule
// that found it, and no part of it.
func Marker(rule string) string { return "[REDACTED " + rule + "]" }

// Redact returns data with each finding's spans replaced by its marker.
// A span that starts just after a backslash starts at it instead, so
// that no JSON escape is cut in two: a redacted line of a JSONL
// transcript stays valid JSON. A line that was valid JSON and is not
// afterwards is an error (the conversation could not resume), never sent.
func Redact(data []byte, findings []Finding) ([]byte, error) {
	type cut struct {
		Span
		rule string
	}
	var cuts []cut
	for _, f := range findings {
		for _, s := range f.Spans {
			for s.Start > 0 && backslashes(data, s.Start)%2 == 1 {
				s.Start--
			}
			cuts = append(cuts, cut{s, f.Rule})
		}
	}
	if len(cuts) == 0 {
		return data, nil
	}
	slices.SortFunc(cuts, func(a, b cut) int { return a.Start - b.Start })
	var out bytes.Buffer
	at := 0
	for _, c := range cuts {
		if c.End <= at {
			continue // inside one already replaced
		}
		out.Write(data[at:max(at, c.Start)])
		out.WriteString(Marker(c.rule))
		at = c.End
	}
	out.Write(data[at:])
	red := out.Bytes()
	if err := sameShape(data, red); err != nil {
		return nil, err
	}
	return red, nil
}

// backslashes counts the backslashes right before off.
func backslashes(data []byte, off int) int {
	n := 0
	for off-n-1 >= 0 && data[off-n-1] == '\\' {
		n++
	}
	return n
}

// sameShape checks that a redaction left every JSON line JSON, when the
// whole was JSON lines before.
func sameShape(before, after []byte) error {
	if !jsonLines(before) {
		return nil
	}
	for i, line := range bytes.Split(after, []byte("\n")) {
		if len(bytes.TrimSpace(line)) > 0 && !json.Valid(line) {
			return fmt.Errorf("line %d would not be JSON after redaction", i+1)
		}
	}
	return nil
}

// jsonLines reports whether every non-empty line of data is JSON.
func jsonLines(data []byte) bool {
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) > 0 && !json.Valid(line) {
			return false
		}
	}
	return true
}

package store

import (
	"fmt"
	"unicode/utf8"
)

// MaxPrompt is the most of a prompt the journal keeps: enough to tell
// turns apart and to search them, not a copy of the conversation (which
// the agent keeps), and the journal stays small.
const MaxPrompt = 4096

// CutPrompt returns p as the journal keeps it: whole when it fits in
// MaxPrompt bytes, else its start, cut at a character boundary, and a
// marker that says how long it was.
func CutPrompt(p string) string {
	if len(p) <= MaxPrompt {
		return p
	}
	marker := fmt.Sprintf(" […cut: %d bytes in all]", len(p))
	cut := MaxPrompt - len(marker)
	for cut > 0 && !utf8.RuneStart(p[cut]) {
		cut--
	}
	return p[:cut] + marker
}

package store

import (
	"fmt"
	"unicode/utf8"
)

// MaxPrompt is the most of a prompt, or of a label, the journal keeps:
// enough to tell turns apart and to search them, not a copy of the
// conversation (which the agent keeps), and the journal stays small. A
// label has the same bound: a model once stored 5 MiB as one through MCP,
// and list printed it whole.
const MaxPrompt = 4096

// CutPrompt returns p (a prompt or a label) as the journal keeps it: whole when it fits in
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

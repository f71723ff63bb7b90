package picker

import (
	"fmt"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/turns"
)

// Screen is what the picker draws: one string per terminal row, none
// wider than the terminal, and which row is highlighted (-1 for none).
// The text alone says which entry is highlighted too (a "> " mark), for
// terminals and captures without attributes.
type Screen struct {
	Lines     []string
	Highlight int
}

// ListRows is how many entries the list shows on a terminal height rows
// tall: all of them when they fit in half of it, so that the plan below
// keeps the other half.
func ListRows(entries, height int) int {
	return max(1, min(entries, (height-3)/2))
}

// Follow scrolls the list, rows entries tall, so that it shows the
// highlighted entry.
func (m *Model) Follow(rows int) {
	m.Top = min(max(m.Top, m.Cursor-rows+1), m.Cursor)
	m.Top = max(0, min(m.Top, len(m.Entries)-rows))
}

// View draws m on a terminal width columns wide and height rows tall: a
// title, the list, the plan of the highlighted entry, and the keys.
func View(m Model, width, height int) Screen {
	rows := ListRows(len(m.Entries), height)
	m.Follow(rows)
	var lines []string
	add := func(s string) { lines = append(lines, cut(s, width)) }
	title := "rewind to the start of which turn?"
	if len(m.Entries) > rows {
		title += fmt.Sprintf(" (%d of %d)", m.Cursor+1, len(m.Entries))
	}
	add(title)
	idW, ageW, chW := 0, 0, 0
	for _, e := range m.Entries {
		idW, ageW, chW = max(idW, len(e.ID)), max(ageW, len(e.Age)), max(chW, len(e.Changes))
	}
	highlight := -1
	for i := m.Top; i < m.Top+rows && i < len(m.Entries); i++ {
		e := m.Entries[i]
		mark := "  "
		if i == m.Cursor {
			mark, highlight = "> ", len(lines)
		}
		prompt := firstLine(e.Prompt)
		if prompt == "" {
			prompt = "(no prompt recorded)"
		}
		add(fmt.Sprintf("%s%-*s  %-*s  %-*s  %s", mark, idW, e.ID, ageW, e.Age, chW, e.Changes, prompt))
	}
	if len(m.Entries) > 0 {
		planLines := max(0, height-len(lines)-1)
		for _, l := range planView(m, planLines, width) {
			add(l)
		}
	}
	add("j/k or arrows: move   enter: choose   q or esc: leave")
	if len(lines) > height {
		lines = lines[:max(height, 0)]
	}
	if highlight >= len(lines) {
		highlight = -1
	}
	return Screen{Lines: lines, Highlight: highlight}
}

// planView is the plan of the highlighted entry, in at most rows lines:
// a rule that names it, the files (the last line says how many more when
// they do not fit), then what is left alone and the notes, which are kept
// whatever else is cut.
func planView(m Model, rows, width int) []string {
	if rows <= 0 {
		return nil
	}
	id := m.Selected()
	p, ok := m.Plans[id]
	var head string
	var body, tail []string
	switch {
	case !ok:
		head = "computing what a rewind to " + id + " would do..."
	case len(p.Error) > 0:
		head = "no plan for " + id
		body = append([]string{"error: " + p.Error[0]}, prefixed("hint: ", p.Error[1:])...)
	case len(p.Files) == 0 && p.Left == 0:
		head = "the working tree already matches " + id + ": nothing to do"
	case len(p.Files) == 0:
		head = "nothing to do at " + id + ": every path that differs is left as it is"
	default:
		head = fmt.Sprintf("a rewind to %s changes %d %s", id, len(p.Files), fault.Plural(len(p.Files), "path", "paths"))
		for _, f := range p.Files {
			body = append(body, fmt.Sprintf("  %-6s %-12s %s", f.Change, f.Class, fault.Quote(f.Path)))
		}
	}
	if ok && len(p.Error) == 0 {
		if p.Left > 0 {
			tail = append(tail, fmt.Sprintf("%d %s left as %s", p.Left, fault.Plural(p.Left, "path is", "paths are"), fault.Plural(p.Left, "it is", "they are")))
		}
		tail = append(tail, p.Note...)
	}
	out := []string{rule("-- "+head+" ", width)}
	room := rows - 1 - min(len(tail), max(rows-2, 0))
	if len(body) > room && room > 0 {
		more := len(body) - room + 1
		body = append(body[:room-1], fmt.Sprintf("  ... and %d more", more))
	}
	out = append(out, body[:min(len(body), max(room, 0))]...)
	out = append(out, tail...)
	return out[:min(len(out), rows)]
}

func prefixed(prefix string, lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = prefix + l
	}
	return out
}

// rule pads a heading with dashes to the terminal's width.
func rule(s string, width int) string {
	if n := width - textWidth(s); n > 0 {
		return s + strings.Repeat("-", n)
	}
	return s
}

// firstLine is a prompt's first line that is not blank (turns.FirstLine),
// with every control character made a space first: a prompt is anyone's
// text, and must neither break the list's rows nor steer the terminal.
func firstLine(prompt string) string {
	return turns.FirstLine(strings.Map(func(r rune) rune {
		if r != '\n' && (r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0xfffd || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)) {
			return ' '
		}
		return r
	}, prompt))
}

// cut shortens s to width columns, ending with "..." when it was longer.
func cut(s string, width int) string {
	if textWidth(s) <= width {
		return s
	}
	if width <= 3 {
		return strings.Repeat(".", max(width, 0))
	}
	var b strings.Builder
	w := 0
	for _, r := range s {
		rw := runeWidth(r)
		if w+rw > width-3 {
			break
		}
		b.WriteRune(r)
		w += rw
	}
	return b.String() + "..."
}

func textWidth(s string) int {
	w := 0
	for _, r := range s {
		w += runeWidth(r)
	}
	return w
}

// runeWidth is the columns a terminal gives r: two for the wide East
// Asian scripts and emoji, none for combining marks, else one. An
// approximation without tables, enough to keep a row within the width.
func runeWidth(r rune) int {
	switch {
	case r >= 0x300 && r <= 0x36f, r >= 0x200b && r <= 0x200f, r >= 0xfe00 && r <= 0xfe0f:
		return 0
	case r >= 0x1100 && r <= 0x115f, r >= 0x2e80 && r <= 0xa4cf, r >= 0xac00 && r <= 0xd7a3,
		r >= 0xf900 && r <= 0xfaff, r >= 0xfe30 && r <= 0xfe4f, r >= 0xff00 && r <= 0xff60,
		r >= 0xffe0 && r <= 0xffe6, r >= 0x1f300 && r <= 0x1faff, r >= 0x20000 && r <= 0x3fffd:
		return 2
	}
	return 1
}

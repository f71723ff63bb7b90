// Package picker is the turn picker of `git rewind -i`: a list of the
// turns, newest first, with the plan of the highlighted one beside it,
// read from the keys of a terminal in raw mode.
//
// It knows nothing of how a plan is made: the caller lists the entries
// (Entries) and gives a function that plans one (Planner), which the
// picker calls once per entry, when it is first highlighted. What it
// draws is View, a pure function of the Model, so that the screen can be
// tested without a terminal.
package picker

import "context"

// Entry is one turn of the list.
type Entry struct {
	ID      string // t<n>: a rewind to it goes to the turn's start
	Prompt  string // the prompt as recorded; "" when none was
	Age     string // how long ago the turn started ("5m ago")
	Changes string // what the turn changed ("~2 +1 -0"), or why not known
}

// File is one path of a plan, as the plan lists it.
type File struct{ Change, Class, Path string }

// Preview is the plan of one entry as the picker shows it.
type Preview struct {
	Files []File
	Left  int // paths that differ and are left as they are
	// Error, when set, is why there is no plan (the message, then its
	// hints); Note is said below the plan (a refusal applying it would
	// meet now).
	Error []string
	Note  []string
}

// Planner computes the preview of the entry id.
type Planner func(ctx context.Context, id string) Preview

// Model is the picker's state.
type Model struct {
	Entries []Entry
	Cursor  int // the highlighted entry
	Top     int // the first entry the list shows (it scrolls)
	// Plans are the previews computed so far, by entry id: an entry's is
	// computed once, when it is first highlighted.
	Plans map[string]Preview
}

// Move moves the highlight by delta entries, staying in the list.
func (m *Model) Move(delta int) {
	m.Cursor = min(max(m.Cursor+delta, 0), len(m.Entries)-1)
}

// Selected is the highlighted entry's id.
func (m *Model) Selected() string { return m.Entries[m.Cursor].ID }

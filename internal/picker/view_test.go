package picker

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func threeTurns() Model {
	return Model{
		Entries: []Entry{
			{ID: "t3", Prompt: "fix the failing test\nand then more", Age: "2m ago", Changes: "~1 +0 -0"},
			{ID: "t2", Prompt: "add a cache", Age: "15m ago", Changes: "~0 +1 -0"},
			{ID: "t1", Prompt: "", Age: "1h ago", Changes: "no end"},
		},
		Plans: map[string]Preview{
			"t3": {Files: []File{{"modify", "turn", "main.go"}}},
			"t2": {Files: []File{{"modify", "turn", "main.go"}, {"delete", "turn", "cache.go"}, {"modify", "outside", "notes.txt"}},
				Left: 1, Note: []string{"note: applying it now is refused: a merge is in progress"}},
		},
	}
}

// TestViewOn80x24 is the whole screen of a picker with three turns: the
// list, newest first, the highlight on the first, its plan, the keys.
func TestViewOn80x24(t *testing.T) {
	s := View(threeTurns(), 80, 24)
	want := []string{
		"rewind to the start of which turn?",
		"> t3  2m ago   ~1 +0 -0  fix the failing test",
		"  t2  15m ago  ~0 +1 -0  add a cache",
		"  t1  1h ago   no end    (no prompt recorded)",
		"-- a rewind to t3 changes 1 path -----------------------------------------------",
		"  modify turn         main.go",
		"j/k or arrows: move   enter: choose   q or esc: leave",
	}
	if !slices.Equal(s.Lines, want) || s.Highlight != 1 {
		t.Errorf("View =\n%s\nhighlight %d; want\n%s\nhighlight 1", strings.Join(s.Lines, "\n"), s.Highlight, strings.Join(want, "\n"))
	}
}

// TestViewFollowsTheHighlight moves down and checks the mark and the plan
// moved with it, notes and what is left included; then to an entry whose
// plan is not computed yet.
func TestViewFollowsTheHighlight(t *testing.T) {
	m := threeTurns()
	m.Update(KeyDown, 3)
	s := View(m, 80, 24)
	got := strings.Join(s.Lines, "\n")
	for _, want := range []string{
		"\n  t3  2m ago", "\n> t2  15m ago",
		"-- a rewind to t2 changes 3 paths --",
		"\n  delete turn         cache.go\n",
		"\n  modify outside      notes.txt\n",
		"\n1 path is left as it is\nnote: applying it now is refused: a merge is in progress\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the screen lacks %q:\n%s", want, got)
		}
	}
	if s.Highlight != 2 {
		t.Errorf("highlight on row %d, want 2", s.Highlight)
	}
	m.Update(KeyDown, 3)
	m.Update(KeyDown, 3) // past the end: stays on the last
	got = strings.Join(View(m, 80, 24).Lines, "\n")
	if !strings.Contains(got, "> t1") || !strings.Contains(got, "-- computing what a rewind to t1 would do... --") {
		t.Errorf("on t1, before its plan:\n%s", got)
	}
	m.Plans["t1"] = Preview{Error: []string{"checkpoint k1 is gone: its ref was deleted", "'git checkpoint doctor' explains"}}
	got = strings.Join(View(m, 80, 24).Lines, "\n")
	if !strings.Contains(got, "-- no plan for t1 --") || !strings.Contains(got, "\nerror: checkpoint k1 is gone: its ref was deleted\nhint: 'git checkpoint doctor' explains\n") {
		t.Errorf("on t1 with an error:\n%s", got)
	}
	m.Plans["t1"] = Preview{}
	if got = strings.Join(View(m, 80, 24).Lines, "\n"); !strings.Contains(got, "the working tree already matches t1: nothing to do") {
		t.Errorf("on t1 with an empty plan:\n%s", got)
	}
}

// TestViewFitsTheTerminal fills a small terminal with many turns, long
// prompts, a long plan and hostile text, and checks every row fits, the
// list scrolls to the highlight, and the plan says how much it left out.
func TestViewFitsTheTerminal(t *testing.T) {
	m := Model{Plans: map[string]Preview{}}
	for i := 40; i >= 1; i-- {
		id := fmt.Sprintf("t%d", i)
		m.Entries = append(m.Entries, Entry{ID: id, Age: "3d ago", Changes: "~12 +3 -100",
			Prompt: "\x1b[31mred\x1b[0m 漢字 " + strings.Repeat("a very long prompt ", 10)})
		var p Preview
		for f := 0; f < 50; f++ {
			p.Files = append(p.Files, File{"create", "turn", fmt.Sprintf("dir/file%02d\n.go", f)})
		}
		p.Note = []string{"note: applying it now is refused"}
		m.Plans[id] = p
	}
	m.Cursor = 25
	s := View(m, 80, 24)
	if len(s.Lines) != 24 {
		t.Errorf("%d rows on a 24-row terminal", len(s.Lines))
	}
	for i, l := range s.Lines {
		if w := textWidth(l); w > 80 {
			t.Errorf("row %d is %d columns wide: %q", i, w, l)
		}
		if strings.ContainsAny(l, "\x1b\n\r") {
			t.Errorf("row %d holds a control character: %q", i, l)
		}
	}
	got := strings.Join(s.Lines, "\n")
	if !strings.HasPrefix(got, "rewind to the start of which turn? (26 of 40)\n") {
		t.Errorf("the title does not say where the list is:\n%s", got)
	}
	if s.Highlight < 1 || !strings.HasPrefix(s.Lines[s.Highlight], "> t15 ") || !strings.HasSuffix(s.Lines[s.Highlight], "...") {
		t.Errorf("highlighted row %d: %q", s.Highlight, s.Lines[s.Highlight])
	}
	if !strings.Contains(got, `"dir/file00\n.go"`) || !strings.Contains(got, "  ... and 41 more\nnote: applying it now is refused\nj/k") {
		t.Errorf("the plan is not cut as it should be:\n%s", got)
	}
}

func TestKeys(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []Key
	}{
		{"j", []Key{KeyDown}},
		{"k", []Key{KeyUp}},
		{"\x1b[B\x1b[A", []Key{KeyDown, KeyUp}},
		{"\x1bOB", []Key{KeyDown}},
		{"\x1b[6~\x1b[5~", []Key{KeyPageDown, KeyPageUp}},
		{"\x1b[H\x1b[F", []Key{KeyHome, KeyEnd}},
		{"\r", []Key{KeyEnter}},
		{"q", []Key{KeyQuit}},
		{"\x1b", []Key{KeyQuit}},
		{"\x03", []Key{KeyQuit}},
		{"\x1bx", nil},                // Alt-x
		{"\x1b[15~j", []Key{KeyDown}}, // F5, then j
		{"x", nil},
	} {
		if got := Keys([]byte(tc.in)); !slices.Equal(got, tc.want) {
			t.Errorf("Keys(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestUpdate(t *testing.T) {
	m := threeTurns()
	if id, quit := m.Update(KeyEnd, 3); id != "" || quit || m.Cursor != 2 {
		t.Errorf("End: %q %v, cursor %d", id, quit, m.Cursor)
	}
	m.Update(KeyUp, 3)
	if id, quit := m.Update(KeyEnter, 3); id != "t2" || quit {
		t.Errorf("Enter on t2: %q %v", id, quit)
	}
	if id, quit := m.Update(KeyQuit, 3); id != "" || !quit {
		t.Errorf("quit: %q %v", id, quit)
	}
	m.Update(KeyPageUp, 3)
	if m.Cursor != 0 {
		t.Errorf("PageUp: cursor %d", m.Cursor)
	}
}

func TestFirstLineHidesControls(t *testing.T) {
	// A line of control characters alone is blank; those in the line shown
	// become spaces, so the row neither breaks nor steers the terminal.
	got := firstLine("\n \x01\t\r\n\x1b]0;x\x07 fix\u202e it\nmore")
	if want := "]0;x  fix  it"; got != want {
		t.Errorf("firstLine = %q, want %q", got, want)
	}
}

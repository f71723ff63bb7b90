package fault

import "testing"

// TestQuote pins which names print as they are and which are escaped: an
// escaped name can never forge a line of output or steer the terminal.
func TestQuote(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain.txt", "plain.txt"},
		{"with space", "with space"},
		{" leading space", `" leading space"`},
		{"trailing space ", `"trailing space "`},
		{"-leading-dash", "-leading-dash"},
		{"ünïcødé/日本.txt", "ünïcødé/日本.txt"},
		{"new\nline", `"new\nline"`},
		{"trailing\n", `"trailing\n"`},
		{"tab\there", `"tab\there"`},
		{`q"uote`, `"q\"uote"`},
		{`back\slash`, `"back\\slash"`},
		{"esc\x1b[31mred", `"esc\x1b[31mred"`},
		{"c1\u009bcsi", `"c1\u009bcsi"`},
		{"bidi\u202eexe.txt", `"bidi\u202eexe.txt"`},
		{"del\x7f", `"del\x7f"`},
		{"latin1\xff", `"latin1\xff"`},
	} {
		if got := Quote(c.in); got != c.want {
			t.Errorf("Quote(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestQuoteList(t *testing.T) {
	for _, tc := range []struct {
		paths []string
		want  string
	}{
		{nil, ""},
		{[]string{"a", "new\nline"}, `a, "new\nline"`},
		{[]string{"a", "b", "c", "d"}, "a, b, c and 1 more"},
	} {
		if got := QuoteList(tc.paths, 3); got != tc.want {
			t.Errorf("QuoteList(%q, 3) = %q, want %q", tc.paths, got, tc.want)
		}
	}
}

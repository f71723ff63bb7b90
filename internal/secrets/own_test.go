package secrets

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// urlCases are texts where the line-by-line search of urlMatches could
// part from the expression run on the whole text: matches at the start
// and end of the text and of lines, several on a line, CRs, a scheme
// glued to a word, "://" with no credentials, and none at all.
var urlCases = []string{
	"",
	"://",
	"postgres://user:pw@host",
	"a\npostgres://user:pw@host\nb",
	"x postgres://u:p@h and mysql://a:b@c.d\n",
	"\r\nredis://:secret@cache\r\n",
	"foo_bar://u:p@h\nhttp://host/x\n",
	"https://u:p@h://v:q@w\n\n\nftp://a:b@c",
	"no scheme here\njust text\n",
	"x://:@h\nx://u:@h\n",
	"ümlaut://u:p@h é\n",
}

// TestURLMatchesEqualExpression: the line-by-line search finds what the
// expression finds on the whole text.
func TestURLMatchesEqualExpression(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	parts := []string{"postgres://", "u", ":", "pw", "@", "host", "\n", " ", "\r", "://", "a", "é", "\"", "/", "-", "_"}
	cases := append([]string{}, urlCases...)
	for range 5000 {
		var b strings.Builder
		for range rng.IntN(20) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		cases = append(cases, b.String())
	}
	for _, c := range cases {
		checkURLMatches(t, c)
	}
}

func FuzzURLMatches(f *testing.F) {
	for _, c := range urlCases {
		f.Add(c)
	}
	f.Fuzz(checkURLMatches)
}

func checkURLMatches(t *testing.T, text string) {
	want := urlCredentials.FindAllSubmatchIndex([]byte(text), -1)
	got := urlMatches([]byte(text))
	if len(want) == 0 && len(got) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%q: found %v, the expression finds %v", text, got, want)
	}
}

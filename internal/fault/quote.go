package fault

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Quote prints a path so that nothing in it can forge output lines or
// steer the terminal: a name with a newline, tab, other control character
// (C0 or C1), a bidirectional override, bytes that are not UTF-8, a quote
// or a backslash is printed as a Go string literal, whose escapes are
// unambiguous; so is one that starts or ends with a space, which would
// melt into the padding of a column. Plain names, unicode letters and
// inner spaces included, print as they are.
func Quote(p string) string {
	if strings.HasPrefix(p, " ") || strings.HasSuffix(p, " ") {
		return strconv.Quote(p)
	}
	for _, r := range p {
		if r == '"' || r == '\\' || r == utf8.RuneError || !unicode.IsPrint(r) {
			return strconv.Quote(p)
		}
	}
	return p
}

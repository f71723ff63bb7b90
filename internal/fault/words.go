package fault

import (
	"fmt"
	"strings"
	"time"
)

// Ago says briefly how long ago something was that happened d ago.
func Ago(d time.Duration) string {
	switch {
	case d < 0:
		return "now"
	case d < time.Minute:
		return fmt.Sprintf("%ds ago", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}

// Plural picks the word for n things, for messages that count.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Short abbreviates a commit id for a message, as git's own messages do.
func Short(oid string) string {
	if len(oid) > 12 {
		return oid[:12]
	}
	return oid
}

// ShellQuote quotes s for a POSIX shell when it needs it.
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:+@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// QuoteList names paths for a message: the first most of them, quoted
// where they need it, then how many more there are.
func QuoteList(paths []string, most int) string {
	shown := make([]string, 0, most)
	for _, p := range paths[:min(len(paths), most)] {
		shown = append(shown, Quote(p))
	}
	list := strings.Join(shown, ", ")
	if len(paths) > len(shown) {
		list += fmt.Sprintf(" and %d more", len(paths)-len(shown))
	}
	return list
}

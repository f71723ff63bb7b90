package fault

import "strings"

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

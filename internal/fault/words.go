package fault

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

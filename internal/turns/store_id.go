package turns

import "strings"

// InStore reports whether id names a checkpoint of a fetched store,
// "<store-id prefix>:<id in that store>" ("1c1aecbe:k3", "1c1aecbe:t2"),
// and splits it. The colon keeps such ids apart from this tree's own: no
// k<n>, t<n>, @ or commit prefix holds one. The part after it is an id
// Resolve reads against that store's records.
func InStore(id string) (prefix, rest string, ok bool) {
	prefix, rest, ok = strings.Cut(id, ":")
	if !ok || len(prefix) < 4 || len(prefix) > 16 || rest == "" {
		return "", "", false
	}
	for _, c := range prefix {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return "", "", false
		}
	}
	return prefix, rest, true
}

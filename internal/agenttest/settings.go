package agenttest

import (
	"encoding/json"
	"fmt"
)

// mergeJSON returns one JSON object holding the keys of every non-empty
// object given, merged recursively, later ones winning. An agent reads one
// user settings file, which must hold both this package's settings and the
// caller's.
func mergeJSON(objects ...string) (string, error) {
	out := map[string]any{}
	for _, o := range objects {
		if o == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(o), &m); err != nil {
			return "", fmt.Errorf("not a JSON object: %w", err)
		}
		mergeInto(out, m)
	}
	b, err := json.MarshalIndent(out, "", "  ")
	return string(b) + "\n", err
}

func mergeInto(dst, src map[string]any) {
	for k, v := range src {
		sub, ok := v.(map[string]any)
		have, ok2 := dst[k].(map[string]any)
		if ok && ok2 {
			mergeInto(have, sub)
			continue
		}
		dst[k] = v
	}
}

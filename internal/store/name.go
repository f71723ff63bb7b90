package store

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"
)

// JSON strings hold UTF-8 only: encoding/json writes U+FFFD for every
// byte that is not, so two names that differ only there would print the
// same. A path that is not UTF-8 therefore also goes out as its exact
// bytes, base64 encoded, in a "path_base64" field beside "path" (which
// keeps the readable, lossy form), and is read back from it.

// RawName is the base64 of p's bytes when p is not UTF-8, else "".
func RawName(p string) string {
	if utf8.ValidString(p) {
		return ""
	}
	return base64.StdEncoding.EncodeToString([]byte(p))
}

// MarshalWithRawName is the JSON object of v (a struct with a "path"
// field) with "path_base64" added when path is not UTF-8. Like every JSON
// output of the tool it leaves &, < and > as they are: the encoder's
// default would write them as \u0026 and the like, and the outer encoder
// does not undo what a MarshalJSON wrote.
func MarshalWithRawName(v any, path string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	out := bytes.TrimSpace(b.Bytes())
	raw := RawName(path)
	if raw == "" || len(out) < 2 || out[len(out)-1] != '}' {
		return out, nil
	}
	return append(out[:len(out)-1], []byte(`,"path_base64":"`+raw+`"}`)...), nil
}

// fromRawName returns the path of the base64 raw, or p when raw is empty
// or broken.
func fromRawName(p, raw string) string {
	if raw == "" {
		return p
	}
	b, err := base64.StdEncoding.DecodeString(raw)
	if err != nil {
		return p
	}
	return string(b)
}

type plainSkip Skip

// MarshalJSON adds path_base64 for a path that is not UTF-8.
func (s Skip) MarshalJSON() ([]byte, error) { return MarshalWithRawName(plainSkip(s), s.Path) }

// UnmarshalJSON reads path_base64 back.
func (s *Skip) UnmarshalJSON(b []byte) error {
	var v struct {
		plainSkip
		PathBase64 string `json:"path_base64"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*s = Skip(v.plainSkip)
	s.Path = fromRawName(s.Path, v.PathBase64)
	return nil
}

// ByPath is a map keyed by path whose JSON keeps every name's bytes. A
// JSON object's keys are strings, which turn a name that is not UTF-8
// into U+FFFD (two names into one), so the map goes out as a list of
// entries sorted by path, each {"path", "path_base64" when not UTF-8,
// "entry"}. The object an older version wrote is not read (an error):
// its names may be lost already, and what holds it rebuilds it.
type ByPath[V any] map[string]V

// byPathEntry is one entry of a ByPath in JSON.
type byPathEntry[V any] struct {
	Path       string `json:"path"`
	PathBase64 string `json:"path_base64,omitempty"`
	Entry      V      `json:"entry"`
}

// MarshalJSON writes the entries sorted by path, so that the same map
// is the same bytes.
func (m ByPath[V]) MarshalJSON() ([]byte, error) {
	if m == nil {
		return []byte("null"), nil
	}
	list := make([]byPathEntry[V], 0, len(m))
	for p, v := range m {
		list = append(list, byPathEntry[V]{Path: p, PathBase64: RawName(p), Entry: v})
	}
	slices.SortFunc(list, func(a, b byPathEntry[V]) int { return strings.Compare(a.Path, b.Path) })
	return json.Marshal(list)
}

// UnmarshalJSON reads the list MarshalJSON writes.
func (m *ByPath[V]) UnmarshalJSON(b []byte) error {
	var list []byPathEntry[V]
	if err := json.Unmarshal(b, &list); err != nil {
		return err
	}
	if list == nil {
		*m = nil
		return nil
	}
	*m = make(ByPath[V], len(list))
	for _, e := range list {
		(*m)[fromRawName(e.Path, e.PathBase64)] = e.Entry
	}
	return nil
}

// Paths is a list of paths whose JSON keeps every name's bytes: a
// string for a UTF-8 name, as a list of strings always was, and
// {"path", "path_base64"} for another, so a list an older version wrote
// reads as it did.
type Paths []string

// rawPath is a name that is not UTF-8 in a Paths.
type rawPath struct {
	Path       string `json:"path"`
	PathBase64 string `json:"path_base64"`
}

// MarshalJSON writes each path as a string, or as an object when it is
// not UTF-8.
func (ps Paths) MarshalJSON() ([]byte, error) {
	if ps == nil {
		return []byte("null"), nil
	}
	list := make([]any, len(ps))
	for i, p := range ps {
		if raw := RawName(p); raw != "" {
			list[i] = rawPath{Path: p, PathBase64: raw}
		} else {
			list[i] = p
		}
	}
	return json.Marshal(list)
}

// UnmarshalJSON reads what MarshalJSON writes: a list of strings at
// once, and one with objects element by element.
func (ps *Paths) UnmarshalJSON(b []byte) error {
	var plain []string
	if json.Unmarshal(b, &plain) == nil {
		*ps = plain
		return nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(b, &list); err != nil {
		return err
	}
	out := make(Paths, len(list))
	for i, e := range list {
		if err := json.Unmarshal(e, &out[i]); err == nil {
			continue
		}
		var r rawPath
		if err := json.Unmarshal(e, &r); err != nil {
			return err
		}
		out[i] = fromRawName(r.Path, r.PathBase64)
	}
	*ps = out
	return nil
}

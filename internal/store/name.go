package store

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
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

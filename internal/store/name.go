package store

import (
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

// FromRawName returns the path of the base64 raw, or p when raw is empty
// or broken.
func FromRawName(p, raw string) string {
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

type skipJSON struct {
	plainSkip
	PathBase64 string `json:"path_base64,omitempty"`
}

// MarshalJSON adds path_base64 for a path that is not UTF-8.
func (s Skip) MarshalJSON() ([]byte, error) {
	return json.Marshal(skipJSON{plainSkip(s), RawName(s.Path)})
}

// UnmarshalJSON reads path_base64 back.
func (s *Skip) UnmarshalJSON(b []byte) error {
	var v skipJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*s = Skip(v.plainSkip)
	s.Path = FromRawName(s.Path, v.PathBase64)
	return nil
}

package agents

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Just enough TOML to find one key of a document's root table and read a
// list of strings, so that Codex's config.toml is edited line by line and
// everything else in it stays as the user wrote it.

// rootKey finds the statement `key = value` in the root table (before the
// first [table] header): the byte range of its lines, from the start of
// its first line to the end of the line where the value ends, and the
// value's text.
func rootKey(src, key string) (start, end int, value string, found bool, err error) {
	pos := 0
	for pos < len(src) {
		lineStart := pos
		i := skipBlank(src, pos)
		if i >= len(src) || src[i] == '\n' || src[i] == '\r' || src[i] == '#' {
			pos = lineEnd(src, i)
			continue
		}
		if src[i] == '[' {
			return 0, 0, "", false, nil // a table header: the root table is over
		}
		path, j, err := readKey(src, i)
		if err != nil {
			return 0, 0, "", false, err
		}
		j = skipBlank(src, j)
		if j >= len(src) || src[j] != '=' {
			return 0, 0, "", false, fmt.Errorf("line %d: expected '=' after the key", 1+strings.Count(src[:j], "\n"))
		}
		vs := skipBlank(src, j+1)
		ve, err := skipValue(src, vs)
		if err != nil {
			return 0, 0, "", false, fmt.Errorf("line %d: %v", 1+strings.Count(src[:vs], "\n"), err)
		}
		pos = lineEnd(src, ve)
		if len(path) == 1 && path[0] == key {
			return lineStart, pos, src[vs:ve], true, nil
		}
	}
	return 0, 0, "", false, nil
}

func skipBlank(src string, i int) int {
	for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	return i
}

// lineEnd returns the position after the newline ending the line at i.
func lineEnd(src string, i int) int {
	if n := strings.IndexByte(src[i:], '\n'); n >= 0 {
		return i + n + 1
	}
	return len(src)
}

// readKey reads a dotted key: bare parts and quoted ones.
func readKey(src string, i int) ([]string, int, error) {
	var path []string
	for {
		i = skipBlank(src, i)
		switch {
		case i < len(src) && (src[i] == '"' || src[i] == '\''):
			end, err := skipString(src, i)
			if err != nil {
				return nil, 0, err
			}
			s, err := decodeString(src[i:end])
			if err != nil {
				return nil, 0, err
			}
			path, i = append(path, s), end
		default:
			j := i
			for j < len(src) && (isBare(src[j])) {
				j++
			}
			if j == i {
				return nil, 0, fmt.Errorf("line %d: expected a key", 1+strings.Count(src[:i], "\n"))
			}
			path, i = append(path, src[i:j]), j
		}
		j := skipBlank(src, i)
		if j < len(src) && src[j] == '.' {
			i = j + 1
			continue
		}
		return path, i, nil
	}
}

func isBare(c byte) bool {
	return c == '_' || c == '-' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

// skipValue returns the end of the value starting at i.
func skipValue(src string, i int) (int, error) {
	if i >= len(src) {
		return 0, errors.New("missing value")
	}
	switch src[i] {
	case '"', '\'':
		return skipString(src, i)
	case '[', '{':
		depth := 0
		for i < len(src) {
			switch c := src[i]; {
			case c == '"' || c == '\'':
				end, err := skipString(src, i)
				if err != nil {
					return 0, err
				}
				i = end
				continue
			case c == '#':
				i = lineEnd(src, i)
				continue
			case c == '[' || c == '{':
				depth++
			case c == ']' || c == '}':
				depth--
				if depth == 0 {
					return i + 1, nil
				}
			}
			i++
		}
		return 0, errors.New("unterminated list or table")
	}
	j := i
	for j < len(src) && !strings.ContainsRune(" \t\r\n#", rune(src[j])) {
		j++
	}
	return j, nil
}

// skipString returns the end of the string starting at i, multi-line ones
// included.
func skipString(src string, i int) (int, error) {
	q := src[i]
	if strings.HasPrefix(src[i:], strings.Repeat(string(q), 3)) {
		end := strings.Index(src[i+3:], strings.Repeat(string(q), 3))
		for q == '"' && end >= 0 && escaped(src, i+3+end) {
			next := strings.Index(src[i+3+end+1:], `"""`)
			if next < 0 {
				end = -1
				break
			}
			end += next + 1
		}
		if end < 0 {
			return 0, errors.New("unterminated multi-line string")
		}
		j := i + 3 + end + 3
		for j < len(src) && src[j] == q { // up to two quotes may end the content
			j++
		}
		return j, nil
	}
	for j := i + 1; j < len(src) && src[j] != '\n'; j++ {
		if q == '"' && src[j] == '\\' {
			j++
			continue
		}
		if src[j] == q {
			return j + 1, nil
		}
	}
	return 0, errors.New("unterminated string")
}

// escaped reports whether the byte at i follows an odd number of
// backslashes.
func escaped(src string, i int) bool {
	n := 0
	for j := i - 1; j >= 0 && src[j] == '\\'; j-- {
		n++
	}
	return n%2 == 1
}

// decodeString decodes one single-line basic or literal string.
func decodeString(s string) (string, error) {
	if len(s) < 2 || strings.HasPrefix(s, `"""`) || strings.HasPrefix(s, "'''") {
		return "", errors.New("multi-line strings are not supported here")
	}
	if s[0] == '\'' {
		return s[1 : len(s)-1], nil
	}
	var b strings.Builder
	body := s[1 : len(s)-1]
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(body) {
			return "", errors.New("bad escape")
		}
		switch body[i] {
		case 'b':
			b.WriteByte('\b')
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'f':
			b.WriteByte('\f')
		case 'r':
			b.WriteByte('\r')
		case 'e':
			b.WriteByte(0x1b)
		case '"', '\\':
			b.WriteByte(body[i])
		case 'u', 'U':
			n := 4
			if body[i] == 'U' {
				n = 8
			}
			if i+1+n > len(body) {
				return "", errors.New("bad unicode escape")
			}
			r, err := strconv.ParseUint(body[i+1:i+1+n], 16, 32)
			if err != nil || !utf8.ValidRune(rune(r)) {
				return "", errors.New("bad unicode escape")
			}
			b.WriteRune(rune(r))
			i += n
		default:
			return "", fmt.Errorf("bad escape \\%c", body[i])
		}
	}
	return b.String(), nil
}

// stringList reads a TOML list of strings: [ "a", 'b', ] with comments and
// newlines between the items.
func stringList(value string) ([]string, error) {
	if !strings.HasPrefix(value, "[") {
		return nil, errors.New("not a list")
	}
	var out []string
	i := 1
	for {
		for i < len(value) && strings.ContainsRune(" \t\r\n,", rune(value[i])) {
			i++
		}
		if i < len(value) && value[i] == '#' {
			i = lineEnd(value, i)
			continue
		}
		if i >= len(value) {
			return nil, errors.New("unterminated list")
		}
		if value[i] == ']' {
			return out, nil
		}
		if value[i] != '"' && value[i] != '\'' {
			return nil, errors.New("not a list of strings")
		}
		end, err := skipString(value, i)
		if err != nil {
			return nil, err
		}
		s, err := decodeString(value[i:end])
		if err != nil {
			return nil, err
		}
		out, i = append(out, s), end
	}
}

// quoteTOML writes s as a TOML basic string.
func quoteTOML(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

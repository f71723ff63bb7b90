// Package jsontext edits JSON text in place. The agents' settings files
// belong to their users: an edit must keep every byte it does not need to
// change (key order, indentation, comments that JSON-with-comments readers
// accept), so that installing and uninstalling a hook leaves the file as
// it was. encoding/json cannot do that; this package parses the text into
// values that know their byte ranges and splices the text instead. It
// also reads single values from text json.Marshal wrote without decoding
// it (StringAfter), where decoding costs a command its time.
package jsontext

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Kind is the type of a JSON value.
type Kind int

const (
	Object Kind = iota
	Array
	String
	Scalar // number, true, false, null
)

// Value is a JSON value and where it is in the text: Start and End are its
// first byte and the byte after its last.
type Value struct {
	Kind       Kind
	Start, End int
	Members    []Member // Object, in order
	Elems      []*Value // Array
	Str        string   // String, decoded
}

// Member is a key and its value; KeyStart is where the key's opening
// quote is.
type Member struct {
	Key      string
	KeyStart int
	Value    *Value
}

// Get returns the value of key in an object, or nil. With a repeated key
// the last one counts, as it does for JSON readers.
func (v *Value) Get(key string) *Value {
	if v == nil || v.Kind != Object {
		return nil
	}
	var found *Value
	for _, m := range v.Members {
		if m.Key == key {
			found = m.Value
		}
	}
	return found
}

// maxDepth bounds nesting, so hostile input cannot exhaust the stack.
const maxDepth = 200

type parser struct {
	src []byte
	pos int
}

// Parse reads one JSON value filling src, allowing // and /* */ comments
// around tokens.
func Parse(src []byte) (*Value, error) {
	p := &parser{src: src}
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	if err := p.space(); err != nil {
		return nil, err
	}
	if p.pos != len(src) {
		return nil, p.errorf("unexpected text after the value")
	}
	return v, nil
}

func (p *parser) errorf(format string, args ...any) error {
	line := 1 + bytes.Count(p.src[:min(p.pos, len(p.src))], []byte("\n"))
	return fmt.Errorf("line %d: %s", line, fmt.Sprintf(format, args...))
}

// space skips whitespace and comments.
func (p *parser) space() error {
	for p.pos < len(p.src) {
		switch c := p.src[p.pos]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.pos++
		case c == '/':
			end, ok := comment(p.src, p.pos)
			if !ok {
				return p.errorf("unterminated comment")
			}
			if end == p.pos {
				return nil
			}
			p.pos = end
		default:
			return nil
		}
	}
	return nil
}

// comment returns the end of the comment that starts at src[i]: the line
// break ending a line comment (or the end of src), or just past "*/". It
// returns i when no comment starts there, and ok false for a block comment
// that does not end.
func comment(src []byte, i int) (end int, ok bool) {
	switch {
	case i+1 >= len(src) || src[i] != '/':
		return i, true
	case src[i+1] == '/':
		if nl := bytes.IndexByte(src[i:], '\n'); nl >= 0 {
			return i + nl, true
		}
		return len(src), true
	case src[i+1] == '*':
		if close := bytes.Index(src[i+2:], []byte("*/")); close >= 0 {
			return i + 2 + close + 2, true
		}
		return len(src), false
	}
	return i, true
}

// afterComments returns the offset just past the last comment in src, a
// stretch of whitespace and comments as space skips them (a line comment
// ends past its line break), or 0 when it holds none.
func afterComments(src []byte) int {
	last := 0
	for i := 0; i < len(src); i++ {
		end, _ := comment(src, i)
		if end == i {
			continue
		}
		if end < len(src) && src[end] == '\n' && src[i+1] == '/' {
			end++ // a line comment's line break is its own
		}
		last, i = end, end-1
	}
	return last
}

func (p *parser) value(depth int) (*Value, error) {
	if depth > maxDepth {
		return nil, p.errorf("nested too deeply")
	}
	if err := p.space(); err != nil {
		return nil, err
	}
	if p.pos >= len(p.src) {
		return nil, p.errorf("unexpected end of the text")
	}
	switch p.src[p.pos] {
	case '{':
		return p.object(depth)
	case '[':
		return p.array(depth)
	case '"':
		return p.string()
	}
	start := p.pos
	for p.pos < len(p.src) && bytes.IndexByte([]byte("+-.0123456789eEtruefalsn"), p.src[p.pos]) >= 0 {
		p.pos++
	}
	var x any
	if p.pos == start || json.Unmarshal(p.src[start:p.pos], &x) != nil {
		p.pos = start
		return nil, p.errorf("unexpected %q", p.src[start])
	}
	return &Value{Kind: Scalar, Start: start, End: p.pos}, nil
}

func (p *parser) string() (*Value, error) {
	start := p.pos
	p.pos++
	for p.pos < len(p.src) && p.src[p.pos] != '"' {
		if p.src[p.pos] == '\\' {
			p.pos++
		}
		p.pos++
	}
	if p.pos >= len(p.src) {
		return nil, p.errorf("unterminated string")
	}
	p.pos++
	v := &Value{Kind: String, Start: start, End: p.pos}
	if err := json.Unmarshal(p.src[start:p.pos], &v.Str); err != nil {
		return nil, p.errorf("bad string: %v", err)
	}
	return v, nil
}

func (p *parser) object(depth int) (*Value, error) {
	v := &Value{Kind: Object, Start: p.pos}
	p.pos++
	for {
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.pos < len(p.src) && p.src[p.pos] == '}' && len(v.Members) == 0 {
			break
		}
		if p.pos >= len(p.src) || p.src[p.pos] != '"' {
			return nil, p.errorf("expected a key")
		}
		key, err := p.string()
		if err != nil {
			return nil, err
		}
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return nil, p.errorf("expected ':' after key %q", key.Str)
		}
		p.pos++
		val, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		v.Members = append(v.Members, Member{Key: key.Str, KeyStart: key.Start, Value: val})
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.pos < len(p.src) && p.src[p.pos] == ',' {
			p.pos++
			continue
		}
		if p.pos >= len(p.src) || p.src[p.pos] != '}' {
			return nil, p.errorf("expected ',' or '}'")
		}
		break
	}
	p.pos++
	v.End = p.pos
	return v, nil
}

func (p *parser) array(depth int) (*Value, error) {
	v := &Value{Kind: Array, Start: p.pos}
	p.pos++
	for {
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.pos < len(p.src) && p.src[p.pos] == ']' && len(v.Elems) == 0 {
			break
		}
		elem, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		v.Elems = append(v.Elems, elem)
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.pos < len(p.src) && p.src[p.pos] == ',' {
			p.pos++
			continue
		}
		if p.pos >= len(p.src) || p.src[p.pos] != ']' {
			return nil, p.errorf("expected ',' or ']'")
		}
		break
	}
	p.pos++
	v.End = p.pos
	return v, nil
}

// ErrNotObject is returned for a document whose top value is no object.
var ErrNotObject = errors.New("the top level is not an object")

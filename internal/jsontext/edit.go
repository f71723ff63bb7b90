package jsontext

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Doc is a JSON object document being edited. Every edit splices Src and
// parses it again, so Root always describes Src.
type Doc struct {
	Src  []byte
	Root *Value
	// unit is one level of indentation as the file uses it; compact is
	// set for a file written on one line.
	unit    string
	compact bool
}

// Open parses src, which must hold one object; empty text is an empty
// object.
func Open(src []byte) (*Doc, error) {
	if len(bytes.TrimSpace(src)) == 0 {
		src = []byte("{}\n")
	}
	d := &Doc{Src: src}
	if err := d.parse(); err != nil {
		return nil, err
	}
	d.unit, d.compact = "  ", false
	if r := d.Root; len(r.Members) > 0 {
		first := r.Members[0].KeyStart
		if d.line(first) == d.line(r.Start) {
			d.compact = true
		} else if unit, ok := strings.CutPrefix(d.indentAt(first), d.indentAt(r.Start)); ok && unit != "" {
			// The members' indent past the object's own; an object
			// indented more than its members keeps the default.
			d.unit = unit
		}
	}
	return d, nil
}

func (d *Doc) parse() error {
	v, err := Parse(d.Src)
	if err != nil {
		return err
	}
	if v.Kind != Object {
		return ErrNotObject
	}
	d.Root = v
	return nil
}

// Get follows keys from the root; nil when one is missing.
func (d *Doc) Get(path ...string) *Value {
	v := d.Root
	for _, k := range path {
		v = v.Get(k)
	}
	return v
}

// Text returns the bytes of v.
func (d *Doc) Text(v *Value) []byte { return d.Src[v.Start:v.End] }

// Bare reports whether v is an empty object or array with nothing but
// white space between its brackets: no comment a person wrote there, so
// that removing it loses nothing of theirs.
func (d *Doc) Bare(v *Value) bool {
	return (v.Kind == Object || v.Kind == Array) && len(v.Members) == 0 && len(v.Elems) == 0 &&
		len(bytes.TrimSpace(d.Src[v.Start+1:v.End-1])) == 0
}

// line returns the number of newlines before pos.
func (d *Doc) line(pos int) int { return bytes.Count(d.Src[:pos], []byte("\n")) }

// indentAt returns the whitespace that starts the line holding pos.
func (d *Doc) indentAt(pos int) string {
	start := bytes.LastIndexByte(d.Src[:pos], '\n') + 1
	end := start
	for end < len(d.Src) && (d.Src[end] == ' ' || d.Src[end] == '\t') {
		end++
	}
	return string(d.Src[start:end])
}

// splice replaces Src[start:end] with text and parses again.
func (d *Doc) splice(start, end int, text string) error {
	src := make([]byte, 0, len(d.Src)-(end-start)+len(text))
	src = append(src, d.Src[:start]...)
	src = append(src, text...)
	src = append(src, d.Src[end:]...)
	old := d.Src
	d.Src = src
	if err := d.parse(); err != nil {
		d.Src = old
		d.parse()
		return fmt.Errorf("internal: an edit broke the document: %v", err)
	}
	return nil
}

// render formats compact JSON raw for a place whose lines start with
// indent: on one line in a one-line container, else indented like the
// file.
func (d *Doc) render(raw []byte, indent string, inline bool) (string, error) {
	var b bytes.Buffer
	var err error
	if inline || d.compact {
		err = json.Compact(&b, raw)
	} else {
		err = json.Indent(&b, raw, indent, d.unit)
	}
	return b.String(), err
}

// childPlace says how to write a new child of container c: the
// indentation of its lines, and whether the container is written on one
// line.
func (d *Doc) childPlace(c *Value) (indent string, inline bool) {
	first := -1
	switch {
	case c.Kind == Object && len(c.Members) > 0:
		first = c.Members[0].KeyStart
	case c.Kind == Array && len(c.Elems) > 0:
		first = c.Elems[0].Start
	}
	if first >= 0 {
		if d.line(first) == d.line(c.Start) {
			return "", true
		}
		return d.indentAt(first), false
	}
	return d.indentAt(c.Start) + d.unit, d.compact
}

// insert adds text (a member "key": value, or an element) as the last
// child of container c.
func (d *Doc) insert(c *Value, text string, indent string, inline bool) error {
	lastEnd := -1
	switch {
	case c.Kind == Object && len(c.Members) > 0:
		lastEnd = c.Members[len(c.Members)-1].Value.End
	case c.Kind == Array && len(c.Elems) > 0:
		lastEnd = c.Elems[len(c.Elems)-1].End
	}
	switch {
	case lastEnd >= 0 && inline:
		return d.splice(lastEnd, lastEnd, ", "+text)
	case lastEnd >= 0:
		return d.splice(lastEnd, lastEnd, ",\n"+indent+text)
	case len(bytes.TrimSpace(d.Src[c.Start+1:c.End-1])) > 0:
		// Empty but for a comment: keep it, and write after it.
		if inline {
			return d.splice(c.End-1, c.End-1, text)
		}
		return d.splice(c.End-1, c.End-1, "\n"+indent+text+"\n"+d.indentAt(c.Start))
	case inline:
		return d.splice(c.Start+1, c.End-1, text)
	}
	return d.splice(c.Start+1, c.End-1, "\n"+indent+text+"\n"+d.indentAt(c.Start))
}

// Append adds raw (compact JSON) as the last element of the array at
// path, creating the objects and the array on the way when they are
// missing. Something else than an object or an array on the path is an
// error, and nothing changes.
func (d *Doc) Append(path []string, raw []byte) error {
	c := d.Root
	for i, k := range path {
		next := c.Get(k)
		if next == nil {
			return d.insertPath(c, path, i, "["+string(raw)+"]")
		}
		want := Object
		if i == len(path)-1 {
			want = Array
		}
		if next.Kind != want {
			return fmt.Errorf("%s is not %s", strings.Join(path[:i+1], "."), map[Kind]string{Object: "an object", Array: "a list"}[want])
		}
		c = next
	}
	indent, inline := d.childPlace(c)
	text, err := d.render(raw, indent, inline)
	if err != nil {
		return err
	}
	return d.insert(c, text, indent, inline)
}

// Replace writes raw (compact JSON) in place of v, indented like v.
func (d *Doc) Replace(v *Value, raw []byte) error {
	inline := false
	if p, _ := d.parent(d.Root, v); p != nil {
		_, inline = d.childPlace(p)
	}
	text, err := d.render(raw, d.indentAt(v.Start), inline)
	if err != nil {
		return err
	}
	return d.splice(v.Start, v.End, text)
}

// Remove deletes v, an element of an array or the value of an object's
// member (the member goes with it), together with the separator and space
// before it: the exact inverse of Append.
func (d *Doc) Remove(v *Value) error {
	p, i := d.parent(d.Root, v)
	if p == nil {
		return fmt.Errorf("internal: no parent for the value to remove")
	}
	type span struct{ start, end int }
	var spans []span
	if p.Kind == Object {
		for _, m := range p.Members {
			spans = append(spans, span{m.KeyStart, m.Value.End})
		}
	} else {
		for _, e := range p.Elems {
			spans = append(spans, span{e.Start, e.End})
		}
	}
	switch {
	case len(spans) == 1:
		// What insert wrote into an empty container: the element alone
		// when it was written inline, right before the closing bracket;
		// else from the line break before it to the closing bracket. A
		// comment before it stays, with the line break that ends a line
		// comment and any inside a block comment.
		from := spans[0].start
		if bytes.IndexByte(d.Src[spans[0].end:p.End-1], '\n') >= 0 {
			kept := p.Start + 1 + afterComments(d.Src[p.Start+1:from])
			if nl := bytes.LastIndexByte(d.Src[kept:from], '\n'); nl >= 0 {
				from = kept + nl
			}
		}
		return d.splice(from, p.End-1, "")
	case i > 0:
		return d.splice(spans[i-1].end, spans[i].end, "")
	}
	return d.splice(spans[0].start, spans[1].start, "")
}

// parent finds the container holding v and v's index in it.
func (d *Doc) parent(c, v *Value) (*Value, int) {
	for i, m := range c.Members {
		if m.Value == v {
			return c, i
		}
		if p, j := d.parent(m.Value, v); p != nil {
			return p, j
		}
	}
	for i, e := range c.Elems {
		if e == v {
			return c, i
		}
		if p, j := d.parent(e, v); p != nil {
			return p, j
		}
	}
	return nil, 0
}

// Put sets the member at path to raw (compact JSON): in place of the
// value there, indented like it, or as a new last member, creating the
// objects on the way when they are missing. Something else than an object
// on the way is an error, and nothing changes.
func (d *Doc) Put(path []string, raw []byte) error {
	if v := d.Get(path...); v != nil {
		return d.Replace(v, raw)
	}
	c := d.Root
	for i, k := range path {
		next := c.Get(k)
		if next == nil {
			return d.insertPath(c, path, i, string(raw))
		}
		if next.Kind != Object {
			return fmt.Errorf("%s is not an object", strings.Join(path[:i+1], "."))
		}
		c = next
	}
	return nil
}

// insertPath adds to the object c, which has no member path[i], that
// member with the rest of the path built around value: for path a.b.c, i
// 0 and value v, "a": {"b": {"c": v}}.
func (d *Doc) insertPath(c *Value, path []string, i int, value string) error {
	for j := len(path) - 1; j > i; j-- {
		key, _ := json.Marshal(path[j])
		value = "{" + string(key) + ":" + value + "}"
	}
	indent, inline := d.childPlace(c)
	text, err := d.render([]byte(value), indent, inline)
	if err != nil {
		return err
	}
	key, _ := json.Marshal(path[i])
	return d.insert(c, string(key)+": "+text, indent, inline)
}

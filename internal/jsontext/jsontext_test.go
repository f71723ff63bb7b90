package jsontext

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

var group = []byte(`{"hooks":[{"type":"command","command":"x","timeout":30}]}`)

// The files users have: every one must come back byte for byte after an
// append and the removal of what was appended.
var files = map[string]string{
	"empty":   ``,
	"braces":  "{}\n",
	"two":     "{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"Stop\": [\n      {\n        \"hooks\": [{\"type\": \"command\", \"command\": \"say done\"}]\n      }\n    ]\n  }\n}\n",
	"four":    "{\n    \"permissions\": {\"allow\": [\"Bash(ls)\"]},\n    \"hooks\": {\n        \"PreToolUse\": []\n    }\n}",
	"tabs":    "{\n\t\"hooks\": {\n\t\t\"Stop\": [\n\t\t\t{\"matcher\": \"\", \"hooks\": []}\n\t\t]\n\t}\n}\n",
	"compact": `{"hooks":{"Stop":[{"hooks":[]}]},"env":{"A":"1"}}`,
	"inline":  "{\n  \"hooks\": {\"Stop\": [{\"hooks\": []}]}\n}\n",
	"comment": "// my settings\n{\n  /* hooks below */\n  \"hooks\": {\n    \"Stop\": [] // none yet\n  }\n}\n",
	"crlf":    "{\r\n  \"theme\": \"dark\"\r\n}\r\n",
	"dupkey":  "{\"hooks\": 1, \"hooks\": {}}",
}

func TestAppendRemoveRoundTrip(t *testing.T) {
	for name, src := range files {
		for _, path := range [][]string{{"hooks", "Stop"}, {"hooks", "UserPromptSubmit"}, {"new", "deep", "list"}} {
			d, err := Open([]byte(src))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if err := d.Append(path, group); err != nil {
				t.Fatalf("%s %v: append: %v", name, path, err)
			}
			var check any
			if name != "comment" && json.Unmarshal(d.Src, &check) != nil {
				t.Fatalf("%s %v: not JSON after append:\n%s", name, path, d.Src)
			}
			arr := d.Get(path...)
			if arr == nil || arr.Kind != Array {
				t.Fatalf("%s %v: no array after append:\n%s", name, path, d.Src)
			}
			last := arr.Elems[len(arr.Elems)-1]
			var got, want any
			json.Unmarshal(d.Text(last), &got)
			json.Unmarshal(group, &want)
			if !equalJSON(got, want) {
				t.Fatalf("%s %v: appended %s", name, path, d.Text(last))
			}
			// Remove the element, then the containers the append made.
			if err := d.Remove(last); err != nil {
				t.Fatal(err)
			}
			for i := len(path); i > 0; i-- {
				v := d.Get(path[:i]...)
				if v != nil && len(v.Members) == 0 && len(v.Elems) == 0 && !strings.Contains(src, `"`+path[i-1]+`"`) {
					if err := d.Remove(v); err != nil {
						t.Fatal(err)
					}
				}
			}
			want2 := src
			if want2 == "" {
				want2 = "{}\n"
			}
			if string(d.Src) != want2 {
				t.Errorf("%s %v: not byte-identical after append and remove:\n got %q\nwant %q", name, path, d.Src, want2)
			}
		}
	}
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func TestIndentFollowsTheFile(t *testing.T) {
	d, _ := Open([]byte(files["four"]))
	d.Append([]string{"hooks", "Stop"}, []byte(`{"a":1}`))
	want := "{\n    \"permissions\": {\"allow\": [\"Bash(ls)\"]},\n    \"hooks\": {\n        \"PreToolUse\": [],\n        \"Stop\": [\n            {\n                \"a\": 1\n            }\n        ]\n    }\n}"
	if string(d.Src) != want {
		t.Errorf("got\n%s\nwant\n%s", d.Src, want)
	}
	d, _ = Open([]byte(files["compact"]))
	d.Append([]string{"hooks", "Stop"}, []byte(`{"a": 1}`))
	if want := `{"hooks":{"Stop":[{"hooks":[]}, {"a":1}]},"env":{"A":"1"}}`; string(d.Src) != want {
		t.Errorf("compact: got %s", d.Src)
	}
}

func TestReplaceAndRefuse(t *testing.T) {
	d, _ := Open([]byte(files["two"]))
	stop := d.Get("hooks", "Stop")
	if err := d.Replace(stop.Elems[0], []byte(`{"b":[1,2]}`)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(d.Src), "\"Stop\": [\n      {\n        \"b\": [\n          1,\n          2\n        ]\n      }\n    ]") {
		t.Errorf("replace:\n%s", d.Src)
	}
	before := string(d.Src)
	if err := d.Append([]string{"model", "x"}, group); err == nil {
		t.Error("appended below a string")
	}
	if string(d.Src) != before {
		t.Error("a refused append changed the text")
	}
	for _, bad := range []string{"[]", "{", `{"a":}`, `{"a":1,}`, "{} x", strings.Repeat("[", 500)} {
		if _, err := Open([]byte(bad)); err == nil {
			t.Errorf("Open(%.20q) accepted it", bad)
		}
	}
}

func FuzzOpen(f *testing.F) {
	for _, s := range files {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		d, err := Open([]byte(src))
		if err != nil {
			return
		}
		before := string(d.Src)
		hadHooks, hadStop := d.Get("hooks") != nil, d.Get("hooks", "Stop") != nil
		if err := d.Append([]string{"hooks", "Stop"}, group); err != nil {
			return
		}
		arr := d.Get("hooks", "Stop")
		if err := d.Remove(arr.Elems[len(arr.Elems)-1]); err != nil {
			t.Fatal(err)
		}
		if v := d.Get("hooks", "Stop"); v != nil && !hadStop {
			d.Remove(v)
		}
		if v := d.Get("hooks"); v != nil && !hadHooks {
			d.Remove(v)
		}
		// An empty container's inner whitespace ("{ }") is not kept: the
		// container comes back as "{}". Everything else, comments inside
		// empty containers too, comes back exactly.
		if string(d.Src) != before && !emptyWithSpace.MatchString(before) {
			t.Fatalf("not restored:\n%q\n%q", before, d.Src)
		}
	})
}

var emptyWithSpace = regexp.MustCompile(`[\[{]\s+[\]}]`)

// TestPutRemoveRoundTrip: a member Put adds, deep or not, and the objects
// it made on the way, removed again give back every file byte for byte;
// a Put over a member replaces its value.
func TestPutRemoveRoundTrip(t *testing.T) {
	server := []byte(`{"command":"git-checkpoint","args":["mcp"]}`)
	for name, src := range files {
		if name == "dupkey" {
			continue // "hooks" is not an object there
		}
		for _, path := range [][]string{{"mcpServers", "git-checkpoint"}, {"projects", "/tmp/x", "mcpServers", "git-checkpoint"}, {"hooks", "git-checkpoint"}} {
			d, err := Open([]byte(src))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if err := d.Put(path, server); err != nil {
				t.Fatalf("%s %v: put: %v", name, path, err)
			}
			var check any
			if name != "comment" && json.Unmarshal(d.Src, &check) != nil {
				t.Fatalf("%s %v: not JSON after put:\n%s", name, path, d.Src)
			}
			v := d.Get(path...)
			var got, want any
			json.Unmarshal(d.Text(v), &got)
			json.Unmarshal(server, &want)
			if !equalJSON(got, want) {
				t.Fatalf("%s %v: put %s", name, path, d.Text(v))
			}
			if err := d.Put(path, []byte(`{"command":"other"}`)); err != nil || !strings.Contains(string(d.Text(d.Get(path...))), "other") {
				t.Fatalf("%s %v: put over it: %v\n%s", name, path, err, d.Src)
			}
			for i := len(path); i > 0; i-- {
				if v := d.Get(path[:i]...); i == len(path) || (len(v.Members) == 0 && !strings.Contains(src, `"`+path[i-1]+`"`)) {
					if err := d.Remove(v); err != nil {
						t.Fatal(err)
					}
				}
			}
			if string(d.Src) != src && !(src == "" && string(d.Src) == "{}\n") {
				t.Errorf("%s %v: after put and remove\n%q\nwant\n%q", name, path, d.Src, src)
			}
		}
	}
	d, _ := Open([]byte(`{"mcpServers": []}`))
	if err := d.Put([]string{"mcpServers", "x"}, server); err == nil {
		t.Errorf("put into a list: no error\n%s", d.Src)
	}
}

// TestStringAfter: the value after a prefix at the start of the text, and
// what follows it; a value with an escape, or a prefix elsewhere, is no
// answer.
func TestStringAfter(t *testing.T) {
	v, rest, ok := StringAfter([]byte(`{"real":"1-2-3","exclude":"none"}`), `{"real":"`)
	if !ok || v != "1-2-3" || string(rest) != `,"exclude":"none"}` {
		t.Errorf("StringAfter = %q, %q, %v", v, rest, ok)
	}
	for _, b := range []string{`{"real":"a\"b"}`, `{"real":"a\\b"}`, ` {"real":"a"}`, `{"real":"a`} {
		if v, _, ok := StringAfter([]byte(b), `{"real":"`); ok {
			t.Errorf("StringAfter(%s) = %q, want no answer", b, v)
		}
	}
}

package scripttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// jsonCheck checks the last command's stdout, which must be exactly one JSON
// document, field by field:
//
//	json PATH VALUE      the value at PATH equals the JSON VALUE ("k1", 3, [], null)
//	json PATH ~REGEXP    the value at PATH, in compact JSON, matches REGEXP
//	json PATH has K...   the object at PATH has (at least) the keys K...
//	json PATH len N      the array or object at PATH has N elements
//
// PATH is "." for the document itself, or a chain of .key and [index]
// steps: .checkpoints[0].id.
func jsonCheck(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: json PATH VALUE | json PATH ~REGEXP | json PATH has KEY... | json PATH len N")
	}
	doc := decodeOne(ts, []byte(ts.ReadFile("stdout")))
	v, err := lookup(doc, args[0])
	if err != nil {
		ts.Fatalf("json %s: %v", args[0], err)
	}
	got := compact(v)
	switch {
	case args[1] == "has":
		obj, ok := v.(map[string]any)
		if !ok {
			ts.Fatalf("json %s: %s is not an object", args[0], got)
		}
		for _, k := range args[2:] {
			if _, ok := obj[k]; !ok {
				ts.Fatalf("json %s: no key %q in %s", args[0], k, got)
			}
		}
	case args[1] == "len" && len(args) == 3:
		n, err := strconv.Atoi(args[2])
		ts.Check(err)
		var have int
		switch x := v.(type) {
		case []any:
			have = len(x)
		case map[string]any:
			have = len(x)
		default:
			ts.Fatalf("json %s: %s has no length", args[0], got)
		}
		if have != n {
			ts.Fatalf("json %s: %d elements, want %d: %s", args[0], have, n, got)
		}
	case strings.HasPrefix(args[1], "~") && len(args) == 2:
		re, err := regexp.Compile(args[1][1:])
		ts.Check(err)
		if !re.MatchString(got) {
			ts.Fatalf("json %s: %s does not match %s", args[0], got, args[1][1:])
		}
	case len(args) == 2:
		want := compact(decodeOne(ts, []byte(args[1])))
		if got != want {
			ts.Fatalf("json %s: got %s, want %s", args[0], got, want)
		}
	default:
		ts.Fatalf("usage: json PATH VALUE | json PATH ~REGEXP | json PATH has KEY... | json PATH len N")
	}
}

// decodeOne parses data as exactly one JSON document.
func decodeOne(ts *testscript.TestScript, data []byte) any {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		ts.Fatalf("not one JSON document: %v\n%s", err, data)
	}
	if dec.More() {
		ts.Fatalf("more than one JSON document:\n%s", data)
	}
	return v
}

var pathStep = regexp.MustCompile(`^(?:\.([A-Za-z_][A-Za-z0-9_]*)|\[([0-9]+)\])`)

// lookup follows path through v.
func lookup(v any, path string) (any, error) {
	if path == "." {
		return v, nil
	}
	for rest := path; rest != ""; {
		m := pathStep.FindStringSubmatch(rest)
		if m == nil {
			return nil, fmt.Errorf("bad path at %q", rest)
		}
		rest = rest[len(m[0]):]
		if m[1] != "" {
			obj, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s is not an object", compact(v))
			}
			if v, ok = obj[m[1]]; !ok {
				return nil, fmt.Errorf("no key %q", m[1])
			}
			continue
		}
		i, _ := strconv.Atoi(m[2])
		arr, ok := v.([]any)
		if !ok || i >= len(arr) {
			return nil, fmt.Errorf("no element %d in %s", i, compact(v))
		}
		v = arr[i]
	}
	return v, nil
}

func compact(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return strings.TrimSpace(b.String())
}

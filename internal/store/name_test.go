package store

import (
	"encoding/json"
	"reflect"
	"testing"
)

// Names that are not UTF-8 go through JSON with every byte, in maps and
// lists alike; a list of strings an older version wrote still reads.
func TestPathsKeepBytes(t *testing.T) {
	bad := "bad\xff\xfename"
	m := ByPath[int]{bad: 1, "bad\ufffd\ufffdname": 2, "good": 3}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var back ByPath[int]
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, m) {
		t.Errorf("map: got %v from %s, want %v", back, b, m)
	}
	if again, _ := json.Marshal(back); string(again) != string(b) {
		t.Errorf("map: %s marshals again as %s", b, again)
	}
	if err := json.Unmarshal([]byte(`{"good":3}`), &back); err == nil {
		t.Errorf("an object (the older shape) was read as %v", back)
	}

	ps := Paths{"good", bad, "bad\ufffd\ufffdname"}
	b, err = json.Marshal(ps)
	if err != nil {
		t.Fatal(err)
	}
	var list Paths
	if err := json.Unmarshal(b, &list); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(list, ps) {
		t.Errorf("list: got %q from %s, want %q", list, b, ps)
	}
	if err := json.Unmarshal([]byte(`["a","b"]`), &list); err != nil || !reflect.DeepEqual(list, Paths{"a", "b"}) {
		t.Errorf("a list of strings reads as %q, %v", list, err)
	}
}

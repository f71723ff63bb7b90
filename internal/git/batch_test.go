package git

import "testing"

// TestParseBatch reads answers whose requests hold spaces, newlines and the
// very words git uses: only the exact echo of a request is "missing".
func TestParseBatch(t *testing.T) {
	reqs := []string{"r:My Notes", "r:a\nb", "r:x 1 missing", "0123 tree 3"}
	out := "r:My Notes missing\n" +
		"0123 tree 3\nabc\n" +
		"r:x 1 missing missing\n" +
		"4567 blob 0\n\n"
	objs, err := parseBatch([]byte(out), reqs)
	if err != nil {
		t.Fatal(err)
	}
	if !objs[0].Missing || objs[1].Type != "tree" || string(objs[1].Body) != "abc" ||
		!objs[2].Missing || objs[3].ID != "4567" || len(objs[3].Body) != 0 {
		t.Errorf("parseBatch = %+v", objs)
	}
	if _, err := parseBatch([]byte("r:My Notes missing\n"), reqs[:2]); err == nil {
		t.Error("a short answer was accepted")
	}
	if _, err := parseBatch([]byte("r missing\n"), []string{"r:My Notes"}); err == nil {
		t.Error("an answer for another request was accepted")
	}
}

package gitformat

import (
	"os"
	"strings"
	"testing"
)

// TestEveryFileHasItsTest keeps the fence's rule: each file of this
// package that re-implements a part of git has its differential test in
// a file of the same name beside it.
func TestEveryFileHasItsTest(t *testing.T) {
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || name == "doc.go" {
			continue
		}
		if _, err := os.Stat(strings.TrimSuffix(name, ".go") + "_test.go"); err != nil {
			t.Errorf("%s has no %s beside it", name, strings.TrimSuffix(name, ".go")+"_test.go")
		}
	}
}

package checkpoint_test

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestArchitecture holds docs/architecture.md to the code: imports point
// only down its table of packages (so neither front end, cli or mcp,
// imports the other, and no package imports one that stands on it), and
// every package of the module is named on the page.
func TestArchitecture(t *testing.T) {
	const module = "github.com/git-checkpoint/git-checkpoint/"
	doc, err := os.ReadFile("docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	row := map[string]int{} // package → its row in the table
	name := regexp.MustCompile("`((?:internal|cmd)/[a-z0-9/-]+)`")
	n := 0
	for _, line := range strings.Split(string(doc), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 3 || !strings.HasPrefix(line, "| `") {
			continue
		}
		n++
		for _, m := range name.FindAllStringSubmatch(cells[1], -1) {
			row[m[1]] = n
		}
	}
	if n < 10 {
		t.Fatalf("found %d rows in the table of packages: the test no longer reads the page", n)
	}
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, ok := strings.CutPrefix(fields[0], module)
		if !ok {
			continue // the module's root: tests only
		}
		if !strings.Contains(string(doc), "`"+pkg+"`") {
			t.Errorf("%s is not on docs/architecture.md", pkg)
		}
		from, listed := row[pkg]
		if !listed {
			continue // a test-only or build package, named in the text
		}
		for _, imp := range fields[1:] {
			dep, ok := strings.CutPrefix(imp, module)
			if !ok {
				continue
			}
			if to, listed := row[dep]; listed && to < from {
				t.Errorf("%s imports %s, which stands above it on docs/architecture.md", pkg, dep)
			}
		}
	}
}

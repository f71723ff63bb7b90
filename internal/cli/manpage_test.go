package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

// TestManPagesCoverGrammar fails when a command or flag of either binary is
// missing from its man page source, so the pages cannot fall behind.
func TestManPagesCoverGrammar(t *testing.T) {
	for _, tc := range []struct {
		page    string
		grammar any
	}{
		{"git-checkpoint", &checkpointCLI{}},
		{"git-rewind", &rewindCLI{}},
	} {
		src, err := os.ReadFile("../../man/" + tc.page + ".1.md")
		if err != nil {
			t.Fatal(err)
		}
		page := string(src)
		synopsis, _, _ := strings.Cut(page, "## DESCRIPTION")
		parser, err := kong.New(tc.grammar, kong.Name(tc.page), grammarVars(tc.page))
		if err != nil {
			t.Fatal(err)
		}
		var walk func(n *kong.Node)
		walk = func(n *kong.Node) {
			for _, f := range n.Flags {
				if !strings.Contains(page, "`--"+f.Name) {
					t.Errorf("%s: flag --%s (of %q) is not documented", tc.page, f.Name, n.Path())
				}
				if f.Short != 0 && !strings.Contains(page, "`-"+string(f.Short)+"`") {
					t.Errorf("%s: flag -%c is not documented", tc.page, f.Short)
				}
			}
			for _, c := range n.Children {
				if c.Type == kong.CommandNode && !c.Hidden && !strings.Contains(synopsis, " "+c.Name) && !strings.Contains(synopsis, "`"+c.Name+"`") {
					t.Errorf("%s: command %q is missing from the SYNOPSIS", tc.page, c.Name)
				}
				walk(c)
			}
		}
		walk(parser.Model.Node)
	}
}

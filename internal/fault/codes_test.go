package fault

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// codeSyntax is what an error code looks like.
var codeSyntax = regexp.MustCompile(`^(failed|invalid|not_found|conflict|timeout|unsupported)\.[a-z_]+$`)

// TestCodesDeclaredOnce: outside codes.go, no Go source of the tool spells
// an error code as a string, so the list in codes.go is every code there
// is. (Tests may: they check the contract from the outside.)
func TestCodesDeclaredOnce(t *testing.T) {
	root := filepath.Join("..", "..")
	var files []string
	for _, dir := range []string{"internal", "cmd"} {
		filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") &&
				!strings.HasSuffix(p, filepath.Join("fault", "codes.go")) {
				files = append(files, p)
			}
			return nil
		})
	}
	if len(files) < 20 {
		t.Fatalf("found only %d source files under %s", len(files), root)
	}
	fset := token.NewFileSet()
	for _, p := range files {
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			if s, err := strconv.Unquote(lit.Value); err == nil && codeSyntax.MatchString(s) {
				t.Errorf("%s: the error code %s spelled as a string; use its constant from codes.go", fset.Position(lit.Pos()), lit.Value)
			}
			return true
		})
	}
}

// TestCodesSyntax: every declared code is class.reason, in a known class.
func TestCodesSyntax(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "codes.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			s, _ := strconv.Unquote(lit.Value)
			if !codeSyntax.MatchString(s) {
				t.Errorf("code %s is not class.reason", lit.Value)
			}
			if seen[s] {
				t.Errorf("code %s is declared twice", lit.Value)
			}
			seen[s] = true
		}
		return true
	})
	if len(seen) < 30 {
		t.Errorf("only %d codes in codes.go", len(seen))
	}
}

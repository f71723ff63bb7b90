package manpage

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the generated man pages")

// TestPagesUpToDate fails when a committed man/*.1 does not match its
// source; `go test ./internal/manpage -update` (make man) regenerates them.
func TestPagesUpToDate(t *testing.T) {
	sources, _ := filepath.Glob("../../man/*.md")
	if len(sources) == 0 {
		t.Fatal("no man page sources in man/")
	}
	for _, src := range sources {
		text, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Render(text, "git-checkpoint")
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		page := strings.TrimSuffix(src, ".md")
		if *update {
			if err := os.WriteFile(page, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(page)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is out of date with %s: run 'make man'", page, src)
		}
	}
}

func TestRender(t *testing.T) {
	src := "# git-x(1) -- do x\n\n## OPTIONS\n* `--dry-run`:\n  Print *what* it would do.\n\n```\n.dot -x\n```\n"
	got, err := Render([]byte(src), "v")
	if err != nil {
		t.Fatal(err)
	}
	want := ".TH GIT-X 1 \"\" \"v\" \"Git Manual\"\n.SH NAME\ngit\\-x \\- do x\n.SH OPTIONS\n.TP\n\\fB\\-\\-dry\\-run\\fR\nPrint \\fIwhat\\fR it would do.\n.PP\n.RS 4\n.nf\n\\&.dot \\-x\n.fi\n.RE\n"
	if string(got) != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if _, err := Render([]byte("no title"), "v"); err == nil {
		t.Error("a source without a title line rendered")
	}
}

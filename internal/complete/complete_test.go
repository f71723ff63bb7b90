package complete

import (
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

type testGrammar struct {
	Chdir string `short:"C" complete:"file"`
	Quiet bool   `short:"q"`
	Make  struct {
		Label string `short:"m"`
	} `cmd:"" default:"withargs"`
	Show struct {
		Count int    `short:"n"`
		ID    string `arg:"" complete:"checkpoint"`
	} `cmd:""`
	Run struct {
		Command []string `arg:"" passthrough:""`
	} `cmd:""`
	Secret struct{} `cmd:"" hidden:""`
	Mode   string   `enum:"a,b" default:"a"`
}

// TestComplete walks the words as kong's parser would: values of flags
// are skipped (bundled short flags too), a passthrough argument's words
// and what follows -- are the shell's file names, and a value is listed
// only when one is wanted.
func TestComplete(t *testing.T) {
	parser, err := kong.New(&testGrammar{})
	if err != nil {
		t.Fatal(err)
	}
	listed := 0
	list := func(kind string) []Candidate {
		listed++
		return []Candidate{{"k2", kind + " two"}, {"k1", kind + " one"}}
	}
	for _, tc := range []struct {
		line string
		want string // candidates' words joined by spaces, then " :files"
	}{
		{"", "make show run"},
		{"s", "show"},
		{"show ", "k2 k1"},
		{"show -n ", ""},
		{"show -n 3 ", "k2 k1"},
		{"show -qn 3 k", "k2 k1"},
		{"show -qn3 ", "k2 k1"},
		{"show --count=3 ", "k2 k1"},
		{"show k1 ", ""},
		{"-C ", ":files"},
		{"-C dir sh", "show"},
		{"--mode ", "a b"},
		{"--mode=", "--mode=a --mode=b"},
		{"--mode=b ", "make show run"},
		{"-", "--label= --help --chdir= --quiet --mode="},
		{"show --c", "--count= --chdir="},
		{"run ls -", ":files"},
		{"show -- ", ":files"},
	} {
		words := strings.Split(tc.line, " ")
		a := Complete(parser.Model.Node, words, list)
		var got []string
		for _, c := range a.Candidates {
			got = append(got, c.Word)
		}
		if a.Files {
			got = append(got, ":files")
		}
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("%q: got %q, want %q", tc.line, g, tc.want)
		}
	}
	before := listed
	Complete(parser.Model.Node, []string{"show", "--c"}, list)
	Complete(parser.Model.Node, []string{"s"}, list)
	if listed != before {
		t.Errorf("flags and commands asked the lister for ids")
	}
}

// TestScripts checks that every shell has its script and nothing else does.
func TestScripts(t *testing.T) {
	for _, sh := range Shells {
		if b, ok := Script(sh); !ok || !strings.Contains(string(b), Word) {
			t.Errorf("%s: no script that asks %s", sh, Word)
		}
	}
	for _, sh := range []string{"scripts", "", "sh", "powershell"} {
		if _, ok := Script(sh); ok {
			t.Errorf("a script for %q, which is no shell it serves", sh)
		}
	}
}

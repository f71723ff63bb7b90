package cli

import (
	"io"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kong"
)

// TestQuickGrammarAgreesWithWhole parses command lines with captureCLI,
// the part of git-checkpoint's grammar that hooks call, and with the whole
// grammar: what the part takes must select the same command with the same
// values, and what it leaves (other commands, help, the version, bad
// input) must be left to the whole grammar, which prints and reports.
func TestQuickGrammarAgreesWithWhole(t *testing.T) {
	sys := quietIO()
	for _, tc := range []struct {
		args  []string
		quick bool
	}{
		{nil, true},
		{[]string{"-m", "before the refactor"}, true},
		{[]string{"--json", "-q", "--changed", "a.txt", "--changed", "b c.txt"}, true},
		{[]string{"-C", "sub", "create", "--message=x"}, true},
		{[]string{"hook", "claude"}, true},
		{[]string{"hook", "codex", "notify", `{"type":"agent-turn-complete"}`}, true},
		{[]string{"--color", "never", "hook", "aider", "post-commit"}, true},
		{[]string{"list"}, false},
		{[]string{"show", "k3"}, false},
		{[]string{"k3"}, false},
		{[]string{"--help"}, false},
		{[]string{"hook", "--help"}, false},
		{[]string{"--version"}, false},
		{[]string{"hook"}, false},
		{[]string{"hook", "nobody"}, true}, // the hook itself says so, in hook.log
		{[]string{"--nope"}, false},
	} {
		var quick captureCLI
		kq := parseQuietly("git checkpoint", grammar{model: &quick, globals: &quick.Globals}, tc.args, sys, checkpointHelp)
		if (kq != nil) != tc.quick {
			t.Errorf("%q: taken by the quick grammar: %v, want %v", tc.args, kq != nil, tc.quick)
			continue
		}
		if kq == nil {
			continue
		}
		whole, kw := parseWhole(tc.args)
		if kw == nil {
			t.Errorf("%q: the quick grammar takes what the whole one refuses", tc.args)
			continue
		}
		if kq.Command() != kw.Command() || !reflect.DeepEqual(quick, whole.captureCLI) {
			t.Errorf("%q: quick %s %+v, whole %s %+v", tc.args, kq.Command(), quick, kw.Command(), whole.captureCLI)
		}
	}
}

// TestPlainLinesAreTheGrammars: the command lines of turn boundaries and
// hooks run without a parser (plainLine), so what each runs must be what
// the whole grammar selects for it, with the same values (a default added
// to the grammar fails here), and every other line is left to the parser.
func TestPlainLinesAreTheGrammars(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		plain bool
	}{
		{nil, true},
		{[]string{}, true},
		{[]string{"hook", "claude"}, true},
		{[]string{"hook", "codex", "notify", `{"type":"agent-turn-complete"}`}, true},
		{[]string{"hook", "aider", "post-commit"}, true},
		{[]string{"hook", "nobody"}, true}, // the hook itself says so, in hook.log
		{[]string{"hook"}, false},
		{[]string{"hook", "--help"}, false},
		{[]string{"hook", "-q", "claude"}, false},
		{[]string{"hook", "claude", "--json"}, false},
		{[]string{"hook", "claude", "--"}, false},
		{[]string{"-m", "x"}, false},
		{[]string{"create"}, false},
		{[]string{"list"}, false},
		{[]string{"--version"}, false},
	} {
		g, cmd, ok := plainLine(tc.args)
		if ok != tc.plain {
			t.Errorf("%q: run without a parser: %v, want %v", tc.args, ok, tc.plain)
			continue
		}
		if !ok {
			continue
		}
		whole, kw := parseWhole(tc.args)
		if kw == nil {
			t.Errorf("%q: the grammar refuses a line run without a parser", tc.args)
			continue
		}
		var want runner = &whole.Create
		if strings.HasPrefix(kw.Command(), "hook ") {
			want = &whole.Hook
		}
		if !reflect.DeepEqual(*g, whole.Globals) || !reflect.DeepEqual(cmd, want) {
			t.Errorf("%q: plainLine %+v %+v, the grammar selects %s: %+v %+v", tc.args, *g, cmd, kw.Command(), whole.Globals, want)
		}
	}
}

// parseWhole parses args with git-checkpoint's whole grammar, printing
// nothing; the context is nil when the grammar does not take them.
func parseWhole(args []string) (*checkpointCLI, *kong.Context) {
	var whole checkpointCLI
	return &whole, parseQuietly("git checkpoint", grammar{model: &whole, globals: &whole.Globals}, args, quietIO(), checkpointHelp)
}

// quietIO is an IO with empty input whose output goes nowhere.
func quietIO() *IO {
	return &IO{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard,
		Getenv: os.Getenv, Environ: os.Environ, Now: time.Now}
}

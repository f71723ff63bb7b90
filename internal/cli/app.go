// Package cli is the command line of git-checkpoint and git-rewind: kong
// command structs, one per file, and the single place where errors become
// messages and exit statuses.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/alecthomas/kong"

	"github.com/git-checkpoint/git-checkpoint/internal/agents"
	"github.com/git-checkpoint/git-checkpoint/internal/fault"
)

// IO is the outside world a command sees. Tests and the two binaries fill
// it; nothing in this package reads os.Stdin, os.Environ or the clock
// directly.
type IO struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	Environ        func() []string
	Now            func() time.Time
	prog           string // git-checkpoint or git-rewind, for messages
}

// System returns the process's real IO.
func System() *IO {
	return &IO{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		Getenv: os.Getenv, Environ: os.Environ, Now: time.Now}
}

// Globals are the options every command of both binaries takes.
type Globals struct {
	Chdir string `short:"C" name:"chdir" placeholder:"DIR" complete:"file" empty:"allow" help:"Run as if started in DIR."`
	JSON  bool   `name:"json" help:"Print one JSON document on stdout (errors too)."`
	Quiet bool   `short:"q" help:"Print nothing but errors."`
	Color string `enum:"auto,always,never" default:"auto" help:"Color output: auto, always or never (NO_COLOR is honoured)."`

	Version kong.VersionFlag `help:"Print the version this binary was built from and exit."`
}

// rawString decodes a string argument as the bytes it is. Kong's own
// string mapper goes through JSON, which turns bytes that are not UTF-8
// into U+FFFD: a file name that is not UTF-8 given to --changed, run or
// -C named another file, or none.
//
// It is also the one place an empty value is refused: to every command an
// empty string and an absent option look alike, so `--worktree "$DIR"`
// with DIR unset would rewind this tree in place, `--session ""` every
// session and `git rewind ""` the default target. A value whose tag says
// empty:"allow" (-C, -m), and a passthrough command's words, may be empty.
var rawString = kong.MapperFunc(func(ctx *kong.DecodeContext, target reflect.Value) error {
	t, err := ctx.Scan.PopValue("string")
	if err != nil {
		return err
	}
	v, ok := t.Value.(string)
	if !ok {
		return fmt.Errorf("expected a string but got %v", t.Value)
	}
	if v == "" && ctx.Value != nil && ctx.Value.Tag.Get("empty") != "allow" && !ctx.Value.Tag.Passthrough {
		return fault.New(fault.InvalidEmpty, "an empty value names nothing").
			WithHint("give a value, or leave the option out (an unset variable in a script?)")
	}
	target.SetString(v)
	return nil
})

// grammarVars are what the grammar's tags interpolate: the agents' names
// come from their registry, so a new agent needs no edit to a tag.
func grammarVars(prog string) kong.Vars {
	names := agents.Names()
	last := len(names) - 1
	return kong.Vars{
		"agents":      strings.Join(names, ","),
		"agent_names": strings.Join(names[:last], ", ") + " or " + names[last],
		"version":     versionLine(prog),
	}
}

// exitSignal carries kong's request to exit (after --help) out of Parse.
type exitSignal struct{ code int }

// newParser builds the parser of a grammar: the one model that parsing,
// help, the man page test and shell completion all read. extra options
// come last, so they win.
func newParser(name string, grammar any, sys *IO, help string, extra ...kong.Option) (*kong.Kong, error) {
	return kong.New(grammar, append([]kong.Option{
		kong.Name(name),
		kong.Description(help),
		kong.Writers(sys.Stdout, sys.Stderr),
		kong.Exit(func(c int) { panic(exitSignal{c}) }),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true, NoExpandSubcommands: true}),
		kong.Bind(sys),
		kong.KindMapper(reflect.String, rawString),
		grammarVars("git-" + strings.TrimPrefix(name, "git ")),
	}, extra...)...)
}

// A grammar is a command line's model and the global options it fills.
type grammar struct {
	model   any
	globals *Globals
	// plain, when set, gives the command that the grammar selects for the
	// command lines it knows, with the options the grammar fills for them,
	// without building the grammar's parser; ok is false for any other
	// line (plainLine).
	plain func(args []string) (g *Globals, cmd runner, ok bool)
}

// A runner is a selected command, run as kong runs it.
type runner interface {
	Run(ctx context.Context, sys *IO, g *Globals) error
}

// parseQuietly parses args with a part of a command line's grammar
// (captureCLI) and returns nil, having printed nothing, when they are not
// a command of that part or ask kong to print and exit (help, version).
func parseQuietly(name string, g grammar, args []string, sys *IO, help string) (kctx *kong.Context) {
	parser, err := newParser(name, g.model, sys, help, kong.Writers(io.Discard, io.Discard))
	if err != nil {
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(exitSignal); !ok {
				panic(r)
			}
			kctx = nil
		}
	}()
	if kctx, err = parser.Parse(args); err != nil {
		return nil
	}
	return kctx
}

// run parses args into g and runs the selected command, returning the exit
// status. It is the one place where errors are printed and mapped. quick,
// when given, is a part of g's grammar tried first (captureCLI).
func run(name string, g grammar, args []string, sys *IO, help string, quick ...grammar) (code int) {
	prog := "git-" + strings.TrimPrefix(name, "git ")
	sys.prog = prog
	globals := g.globals
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(exitSignal); ok {
				code = e.code
				return
			}
			// A bug of ours: say so as an error, not as a stack trace,
			// which only GIT_CHECKPOINT_TRACE asks for.
			if sys.Getenv("GIT_CHECKPOINT_TRACE") != "" {
				fmt.Fprintf(sys.Stderr, "%v\n%s", r, debug.Stack())
			}
			code = report(prog, globals, sys, fault.New(fault.FailedInternal, "internal error: %v", r).
				WithHint("this is a bug in git-checkpoint: 'git checkpoint doctor' checks the store; run the command again with GIT_CHECKPOINT_TRACE=1 to see where, and report it"))
		}
	}()
	selected, command, err := selectCommand(name, g, args, sys, help, quick)
	globals = selected
	if err != nil {
		return report(prog, globals, sys, err)
	}
	if globals.Chdir != "" {
		// -C is applied by each command through its Env, never os.Chdir,
		// so tests can run many commands in one process.
		if fi, err := os.Stat(globals.Chdir); err != nil || !fi.IsDir() {
			return report(prog, globals, sys, fault.New(fault.InvalidUsage, "cannot change to %s: no such directory", globals.Chdir))
		}
	}
	if err := command(context.Background()); err != nil {
		return report(prog, globals, sys, err)
	}
	return 0
}

// selectCommand returns the command args select and the globals it runs
// with: the grammar's plain line (grammar.plain), else a part of the
// grammar tried first (quick), else what the whole grammar's parser
// selects. A line the parser refuses is an error, with the globals to
// report it by.
func selectCommand(name string, g grammar, args []string, sys *IO, help string, quick []grammar) (*Globals, func(context.Context) error, error) {
	if g.plain != nil {
		if pg, cmd, ok := g.plain(args); ok {
			return pg, func(ctx context.Context) error { return cmd.Run(ctx, sys, pg) }, nil
		}
	}
	globals := g.globals
	var kctx *kong.Context
	for _, q := range quick {
		if kctx = parseQuietly(name, q, args, sys, help); kctx != nil {
			globals = q.globals
			break
		}
	}
	if kctx == nil {
		parser, err := newParser(name, g.model, sys, help)
		if err != nil {
			return globals, nil, fault.Wrap(err, fault.FailedInternal, "bad command grammar")
		}
		if kctx, err = parser.Parse(args); err != nil {
			// A program that asked for --json gets its error as JSON even
			// when another argument is what failed to parse.
			before, _ := splitDashDash(args)
			globals.JSON = globals.JSON || slices.Contains(before, "--json")
			code, hint := fault.InvalidUsage, "see '"+name+" --help'"
			if fe := fault.As(err); fe.Code == fault.InvalidEmpty {
				code, hint = fe.Code, fe.Hints[0]
			}
			return globals, nil, fault.New(code, "%s", err.Error()).WithHint(hint)
		}
	}
	return globals, func(ctx context.Context) error {
		kctx.BindTo(ctx, (*context.Context)(nil))
		return kctx.Run(globals)
	}, nil
}

// report prints err for a person on stderr (or as JSON on stdout with
// --json) and returns its exit status.
func report(prog string, g *Globals, sys *IO, err error) int {
	var status *fault.ExitStatus
	if errors.As(err, &status) {
		return status.Code
	}
	fe := fault.As(fault.Explain(err))
	if g.JSON {
		writeError(sys.Stdout, fe)
	}
	fmt.Fprintf(sys.Stderr, "%s: error: %s\n", prog, fe.Message)
	for _, h := range fe.Hints {
		fmt.Fprintf(sys.Stderr, "hint: %s\n", h)
	}
	return fault.ExitCode(fe)
}

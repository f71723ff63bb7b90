package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/git-checkpoint/git-checkpoint/internal/bisect"
	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
)

type bisectCmd struct {
	Good    string   `placeholder:"ID" complete:"checkpoint" help:"A checkpoint where CMD passes (default: the start of the first turn of the latest session)."`
	Bad     string   `placeholder:"ID" complete:"checkpoint" help:"A checkpoint where CMD fails (default: the newest checkpoint)."`
	Setup   string   `placeholder:"CMD" help:"A shell command run once in the temporary worktree before the first test, to make what checkpoints do not hold (e.g. 'npm ci')."`
	Command []string `arg:"" passthrough:"" placeholder:"CMD" help:"The test: passes when it exits 0, fails otherwise."`
}

func (c *bisectCmd) Help() string {
	return `Find the first checkpoint at which CMD fails (exits non-zero): first turn by
turn, over the checkpoints at the turns' ends between --good and --bad, then
checkpoint by checkpoint within the first bad turn. CMD runs in a temporary
linked worktree (detached, in the system's temporary directory) holding each
candidate's files, never in this tree: this tree, its index, HEAD, branches
and refs are left as they are, and the worktree is removed afterwards, also
after Ctrl-C. CMD's output and the progress go to stderr; stdout holds the
result. Ignored files (node_modules, build output) are not in checkpoints:
--setup makes them. Exits 0 when the first bad checkpoint is found, 1 when
CMD fails at the good end or passes at the bad end, 128+N when signal N
stopped it.`
}

func (c *bisectCmd) Run(ctx context.Context, sys *IO, g *Globals) error {
	args := c.Command
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		return fault.New(fault.InvalidUsage, "no command to test").WithHint("git checkpoint bisect [--good ID] [--bad ID] -- CMD [ARGS...]")
	}
	s, err := open(ctx, sys, g)
	if err != nil {
		return err
	}
	// Repairs a crashed run left are made first, as every command does.
	if _, _, err := s.Journal(ctx); err != nil {
		return err
	}
	var output io.Writer = sys.Stderr
	if g.Quiet {
		output = io.Discard
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	b := &bisect.Bisector{
		Git: s.Git, Repo: s.Repo, Store: s.Store,
		Env:    git.Unanchored(sys.Environ()),
		Output: output,
		Progress: func(p bisect.Progress) {
			fmt.Fprintf(output, "bisect: %s\n", progressLine(p))
		},
		Warn:    func(m string) { s.Warn("%s", m) },
		Signals: sigs,
		Fail:    s.Fail,
	}
	res, err := b.Run(ctx, bisect.Request{Good: c.Good, Bad: c.Bad, Setup: c.Setup, Command: args})
	var stop *bisect.Interrupted
	if errors.As(err, &stop) {
		fe := fault.New(fault.FailedBisectInterrupted, "bisect %s; its temporary worktree was removed", stop.Error())
		if s.out.json {
			writeError(sys.Stdout, fe)
		}
		fmt.Fprintf(sys.Stderr, "%s: error: %s\n", sys.prog, fe.Message)
		return &fault.ExitStatus{Code: 128 + int(stop.Signal)}
	}
	if err != nil {
		return err
	}
	if s.out.json {
		return s.out.JSON(res)
	}
	printBisect(s.out, res)
	return nil
}

// progressLine says which step runs: the ends, then each candidate.
func progressLine(p bisect.Progress) string {
	if p.Setup != "" {
		return "setting up the worktree: " + p.Setup
	}
	line := "testing " + p.Checkpoint
	if p.Turn != "" {
		line += " (turn " + p.Turn + ")"
	}
	if p.End != "" {
		return line + ", the " + p.End + " end"
	}
	return fmt.Sprintf("%s, %d %s left", line, p.Left, fault.Plural(p.Left, "step", "steps"))
}

func printBisect(out *printer, res *bisect.Result) {
	fb := res.FirstBad
	if fb.Turn != "" {
		prompt, _, _ := strings.Cut(fb.Prompt, "\n")
		if prompt == "" {
			prompt = "(no prompt recorded)"
		}
		out.Printf("first bad turn %s: %s\n", fb.Turn, prompt)
	}
	what := fb.Reason
	if fb.Tool != "" {
		what += ", tool " + fb.Tool
	}
	out.Printf("first bad checkpoint %s (%s), changing:\n", fb.Checkpoint, what)
	for _, p := range fb.Paths {
		out.Printf("  %s\n", fault.Quote(p))
	}
	n := len(res.Steps)
	out.Printf("last good checkpoint %s; %d %s from %s (good) to %s (bad)\n", res.LastGood, n, fault.Plural(n, "test", "tests"), res.Good, res.Bad)
}

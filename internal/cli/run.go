package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/git-checkpoint/git-checkpoint/internal/capture"
	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/program"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
	"github.com/git-checkpoint/git-checkpoint/internal/turns"
)

type runCmd struct {
	Command []string `arg:"" passthrough:"" placeholder:"CMD" help:"The program to run, and its arguments."`
}

func (c *runCmd) Help() string {
	return `Checkpoint, run CMD, checkpoint again: for any program that has no hooks of
its own. The run counts as a turn (t<n>), so 'git rewind' without an id goes
back to the tree as it was before CMD. CMD gets the terminal, stdin, stdout
and stderr; git-checkpoint exits with CMD's status (127 when CMD is not found,
126 when it cannot be executed, 128+N when signal N killed it). Ctrl-C reaches
CMD from the terminal directly; TERM, HUP, USR1 and USR2 sent to
git-checkpoint are passed on to it.`
}

// forwarded are the signals passed on to the program. SIGINT and SIGQUIT
// are not: the terminal sends them to the whole foreground process group,
// so the program has them already (a second Ctrl-C often means "quit now"
// to an interactive agent). They are caught only so that git-checkpoint
// lives to take the checkpoint after the program.
func forwarded() []os.Signal {
	return []os.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGUSR1, syscall.SIGUSR2}
}

func (c *runCmd) Run(ctx context.Context, sys *IO, g *Globals) error {
	args := c.Command
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		return fault.New(fault.InvalidUsage, "no command to run").WithHint("git checkpoint run -- CMD [ARGS...]")
	}
	s, err := open(ctx, sys, g)
	if err != nil {
		return err
	}
	path, err := program.LookPath(args[0], s.Cwd, sys.Getenv("PATH"))
	if err != nil {
		return err
	}
	session := "run-" + strconv.Itoa(os.Getpid())
	start, err := s.runCheckpoint(ctx, store.ReasonRunStart, session, "", args)
	if err != nil {
		return fault.Wrap(err, fault.As(err).Code, "cannot take the checkpoint before %s, so it was not run", fault.Quote(args[0]))
	}
	status, err := runProgram(sys, s.Cwd, path, args)
	if _, cerr := s.runCheckpoint(ctx, store.ReasonRunEnd, session, start.Turn, args); cerr != nil {
		fmt.Fprintf(sys.Stderr, "git-checkpoint: warning: no checkpoint after %s: %s\n", fault.Quote(args[0]), fault.As(cerr).Message)
	}
	if err != nil {
		return err
	}
	if status != 0 {
		return &fault.ExitStatus{Code: status}
	}
	return nil
}

// runCheckpoint takes the checkpoint before (a new turn) or after the run.
func (s *session) runCheckpoint(ctx context.Context, reason, session, turn string, args []string) (*store.Record, error) {
	j, unlock, err := s.LockedJournal(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	opts := capture.Options{Reason: reason, Turn: turn, Session: session,
		Agent: "run", Tool: filepath.Base(args[0]), Label: strings.Join(args, " ")}
	if reason == store.ReasonRunStart {
		opts.Turn = turns.Next(j)
		if s.Config.RecordPrompts {
			opts.Prompt = opts.Label // cut with the label, in the record
		}
	}
	return s.Capture.Capture(ctx, j, opts)
}

// runProgram runs the program in the foreground and returns its exit
// status the way a shell reports it.
func runProgram(sys *IO, dir, path string, args []string) (int, error) {
	cmd := exec.Command(path, args[1:]...)
	cmd.Args[0] = args[0]
	cmd.Dir = dir
	cmd.Env = sys.Environ()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = sys.Stdin, sys.Stdout, sys.Stderr
	sigs := make(chan os.Signal, 16)
	signal.Notify(sigs, append(forwarded(), syscall.SIGINT, syscall.SIGQUIT)...)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return 0, program.StartFailure(err, args[0])
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case sig := <-sigs:
				if sig != syscall.SIGINT && sig != syscall.SIGQUIT {
					cmd.Process.Signal(sig)
				}
			case <-done:
				return
			}
		}
	}()
	err := cmd.Wait()
	close(done)
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return 0, fault.Wrap(err, fault.FailedCommand, "%s did not run to its end", fault.Quote(args[0]))
	}
	return program.Status(cmd.ProcessState), nil
}

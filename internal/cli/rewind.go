package cli

import (
	"bufio"
	"context"
	"fmt"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/restore"
	"github.com/git-checkpoint/git-checkpoint/internal/rewind"
)

const rewindHelp = `Restore the working tree (or only PATHs) to a checkpoint, exactly: contents,
modes, symlinks and deletions. Shows the plan first; takes a safety checkpoint
before writing anything, so every rewind can be undone with --undo. The index,
HEAD and branches are not touched.`

// rewindCLI is the grammar of git-rewind.
type rewindCLI struct {
	Globals
	ID      string   `arg:"" optional:"" complete:"checkpoint" help:"The checkpoint: k<n>, t<n>, @ or a commit (default: the latest turn start, else the newest checkpoint that differs from the tree)."`
	DryRun  bool     `short:"n" name:"dry-run" help:"Print the plan and its id; change nothing."`
	Yes     bool     `short:"y" help:"Apply without asking."`
	Plan    string   `placeholder:"P" help:"Apply only if the plan computed now is P (the id a dry run printed)."`
	Outside string   `enum:"refuse,keep,overwrite" default:"refuse" help:"Paths a person changed outside agent turns: refuse, keep or overwrite."`
	Undo    bool     `help:"Undo the last rewind: go back to its safety checkpoint."`
	Force   bool     `help:"Rewind even though an earlier rewind was interrupted."`
	Paths   []string `kong:"-"`
	Pick    bool     `short:"i" name:"interactive" help:"On a terminal: pick the turn to go back to from a list of prompts, then the usual plan and confirmation."`

	ResetHead bool   `name:"reset-head" help:"Also move the branch (or detached HEAD) back to the checkpoint's HEAD and reset the index to it, when no commit it drops was pushed."`
	Worktree  string `name:"worktree" placeholder:"PATH" complete:"file" help:"Leave this tree alone: create a new linked worktree at PATH, on a new branch at the checkpoint's HEAD, holding the checkpoint's files."`

	Only    string `placeholder:"TURN" complete:"turn" help:"Reverse only the changes of turn t<n> (or of a range kA..kB) and keep everything after it."`
	Session string `placeholder:"S" complete:"session" help:"Reverse every change of agent session S (an id or its unique prefix) and keep the others'."`
}

// Rewind runs git-rewind with args and returns its exit status.
func Rewind(args []string, sys *IO) int {
	var c rewindCLI
	args, c.Paths = splitDashDash(args)
	return run("git rewind", grammar{model: &c, globals: &c.Globals}, args, sys, rewindHelp)
}

func (c *rewindCLI) Run(ctx context.Context, sys *IO, g *Globals) error {
	opener := openScanning // a rewind scans the tree first thing under the lock
	if c.Pick || c.Worktree != "" {
		opener = open // a person picks first; a fork scans another tree
	}
	s, err := opener(ctx, sys, g)
	if err != nil {
		return err
	}
	defer s.Release()
	if c.Undo && c.ID != "" {
		return fault.New(fault.InvalidUsage, "--undo takes no checkpoint id").
			WithHint("'git rewind --undo' goes back to the safety checkpoint of the last rewind")
	}
	if err := c.checkFlags(); err != nil {
		return err
	}
	rw := s.rewinder()
	if c.Pick {
		if c.ID, err = c.pick(ctx, s, rw); err != nil {
			return err
		}
	}
	if c.Worktree != "" {
		return c.fork(ctx, s, rw)
	}
	req := rewind.Request{ID: c.ID, Undo: c.Undo, Force: c.Force, ResetHead: c.ResetHead, DryRun: c.DryRun, Outside: c.Outside,
		Only: c.Only, Session: c.Session, Ask: !c.Yes && c.Plan == ""}
	if req.Paths, err = s.Rels(c.Paths); err != nil {
		return err
	}

	if c.DryRun {
		pr, err := rw.Plan(ctx, req)
		if err != nil {
			return err
		}
		pr.RecordRefusal(pr.OutsideEdits())
		return s.printPlan(ctx, rw, pr, true, nil)
	}
	plan := c.Plan
	if !c.Yes && plan == "" {
		// Asked first: the plan is shown without the lock held, and the
		// one applied must have its id.
		var stop error
		if plan, stop = c.ask(ctx, s, rw, &req); stop != nil || plan == "" {
			return stop
		}
	}
	pr, done, err := rw.ApplyPlan(ctx, req, plan)
	if err != nil {
		if pr != nil && fault.As(err).Code == fault.ConflictOutsideEdits && !s.out.json {
			s.printPlan(ctx, rw, pr, true, nil)
		}
		return err
	}
	return s.printPlan(ctx, rw, pr, false, done)
}

// ask shows the plan of req and asks the person whether to apply it, and
// what to do with paths they changed outside agent turns, if any (req's
// Outside changes to their answer). It returns the id of the plan they
// accepted; "" with a nil error when there is nothing to apply, which it
// has printed. Without a person to ask, the plan goes into the error.
func (c *rewindCLI) ask(ctx context.Context, s *session, rw *rewind.Rewinder, req *rewind.Request) (string, error) {
	pr, err := rw.Plan(ctx, *req)
	if err != nil {
		return "", err
	}
	req.Ask = false
	if refusal := pr.OutsideEdits(); refusal != nil {
		if !s.interactive() {
			if !s.out.json {
				s.printPlan(ctx, rw, pr, true, nil)
			}
			return "", refusal
		}
		// The person decides, having seen the plan; the plan of their
		// choice is the one that must be applied.
		choice, err := c.chooseOutside(ctx, s, rw, pr)
		if err != nil {
			return "", err
		}
		req.Outside = choice.Options.Outside
		return choice.ID, nil
	}
	if pr.Nothing() {
		if pr.Interrupted != nil {
			return pr.Plan.ID, nil // ApplyPlan closes the interrupted undo
		}
		return "", s.printPlan(ctx, rw, pr, false, nil)
	}
	if !s.interactive() {
		// With --json the plan goes in the error's data: stdout holds
		// one document, and it is the error.
		var data any = map[string]string{"plan": pr.Plan.ID}
		if s.out.json {
			data = rw.Document(ctx, pr, true, nil)
		} else if err := s.printPlan(ctx, rw, pr, true, nil); err != nil {
			return "", err
		}
		return "", fault.New(fault.InvalidConfirmationRequired, "not applying the plan without confirmation").
			WithHint("review it, then run 'git rewind " + pr.TargetArg() + " --plan " + pr.Plan.ID + "' (applies only this plan) or add --yes").
			WithData(data)
	}
	s.printPlan(ctx, rw, pr, true, nil)
	if !s.confirm("Apply this plan?") {
		return "", fault.New(fault.InvalidAborted, "rewind aborted; nothing was changed")
	}
	return pr.Plan.ID, nil
}

// rewinder is the rewind transaction of this session's tree.
func (s *session) rewinder() *rewind.Rewinder {
	return &rewind.Rewinder{Workspace: s.Workspace, Progress: s.progress}
}

// interactive reports whether a person can answer a prompt.
func (s *session) interactive() bool {
	if s.g.JSON {
		return false
	}
	if s.sys.Getenv("GIT_CHECKPOINT_ASSUME_TTY") != "" {
		return true
	}
	return isTerminal(s.sys.Stdin) && isTerminal(s.sys.Stderr)
}

// confirm asks a yes/no question on stderr and reads the answer.
func (s *session) confirm(question string) bool {
	fmt.Fprintf(s.sys.Stderr, "%s [y/N] ", question)
	line, _ := bufio.NewReader(s.sys.Stdin).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true
	}
	return false
}

// checkFlags refuses combinations that would not mean one clear thing.
func (c *rewindCLI) checkFlags() error {
	bad := func(msg string) error {
		return fault.New(fault.InvalidUsage, "%s", msg).WithHint("see 'git rewind --help'")
	}
	switch {
	case c.ResetHead && c.Undo:
		return bad("--undo takes no --reset-head: it moves HEAD back by itself when the rewind it undoes moved it")
	case c.ResetHead && len(c.Paths) > 0:
		return bad("--reset-head restores the whole tree: it takes no paths")
	case c.Worktree != "" && (c.Undo || c.ResetHead || c.Plan != "" || c.Force || len(c.Paths) > 0):
		return bad("--worktree leaves this tree alone: it takes no --undo, --reset-head, --plan, --force or paths")
	case c.Only != "" || c.Session != "":
		return c.checkReverseFlags()
	case c.Plan != "" && !restore.IsPlanID(c.Plan):
		return fault.New(fault.InvalidPlan, "%s is not a plan id", fault.Quote(c.Plan)).
			WithHint("plan ids look like p1- and 16 hex digits; 'git rewind ID --dry-run' prints one")
	}
	return nil
}

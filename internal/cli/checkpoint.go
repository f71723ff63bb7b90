package cli

import (
	"context"
	"slices"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/complete"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
)

const checkpointHelp = `Snapshot the whole working tree (untracked files included, ignored files
excluded) as a commit under refs/checkpoints/, without touching the index,
HEAD or branches. Restore one with git rewind.`

// checkpointCLI is the grammar of git-checkpoint.
type checkpointCLI struct {
	captureCLI
	List      listCmd      `cmd:"" help:"List checkpoints, newest first."`
	Show      showCmd      `cmd:"" help:"Show one checkpoint's record."`
	Log       logCmd       `cmd:"" help:"List turns, newest first: prompt, changes, checkpoints."`
	Diff      diffCmd      `cmd:"" help:"Show what changed between a checkpoint and the working tree or another checkpoint."`
	Status    statusCmd    `cmd:"" help:"Show the store, counts and any interrupted rewind."`
	Run       runCmd       `cmd:"" help:"Checkpoint, run a program, checkpoint again; exit with its status."`
	Bisect    bisectCmd    `cmd:"" help:"Find the first checkpoint (and turn) at which a command fails, in a temporary worktree."`
	Install   installCmd   `cmd:"" help:"Add git-checkpoint's hooks to an agent's configuration."`
	Uninstall uninstallCmd `cmd:"" help:"Remove git-checkpoint's hooks from an agent's configuration."`
	Prune     pruneCmd     `cmd:"" help:"Apply retention now: delete old checkpoints' refs (never runs gc)."`
	Push      pushCmd      `cmd:"" help:"Publish this working tree's checkpoints and records to a git remote."`
	Fetch     fetchCmd     `cmd:"" help:"Bring the checkpoints and records other stores published on a git remote."`
	Doctor    doctorCmd    `cmd:"" help:"Check the store and its surroundings; say how to fix each problem."`
	Init      initCmd      `cmd:"" help:"Outside any git repository: create a private store here."`
	MCP       mcpCmd       `cmd:"" name:"mcp" help:"Serve agents the checkpoints over the Model Context Protocol (stdio)."`
	Complete  completeCmd  `cmd:"" name:"completion" help:"Print a shell's completion script: bash, zsh or fish."`
}

// captureCLI is the part of the grammar that agents' hooks and turn
// boundaries call, several times a tool call: a capture and a hook.
// Checkpoint parses with it alone first, since building the whole
// grammar's parser is dear (kong reads every tag of every command;
// docs/speed.md, "Small trees"), and falls back to the whole grammar for
// anything it does not parse or that asks for help or the version: errors,
// help and every other command come from the one grammar people see.
type captureCLI struct {
	Globals
	Create createCmd `cmd:"" default:"withargs" help:"Take a checkpoint now (the default command)."`
	Hook   hookCmd   `cmd:"" help:"Entry point for agent hooks: read one event and checkpoint."`
}

// Checkpoint runs git-checkpoint with args and returns its exit status.
func Checkpoint(args []string, sys *IO) int {
	if len(args) > 0 && args[0] == git.FsmonitorQueryWord {
		// git asking a capture's fsmonitor hook (git.Fsmonitor).
		return git.FsmonitorQuery(context.Background(), args[1:], sys.Getenv, sys.Environ(), sys.Stdout, sys.Stderr)
	}
	if len(args) > 0 && args[0] == complete.Word {
		// A shell asking what may come next (git checkpoint completion).
		return completeWords(args[1:], sys)
	}
	var c checkpointCLI
	var quick captureCLI
	if before, rest := splitDashDash(args); rest != nil && subcommand(before) == "diff" {
		// Paths after "--" are never flags or ids, even one named "k3".
		args, c.Diff.Paths = before, rest
	}
	return run("git checkpoint", grammar{model: &c, globals: &c.Globals, plain: plainLine}, args, sys, checkpointHelp,
		grammar{model: &quick, globals: &quick.Globals})
}

// plainLine gives what the grammar selects for the two command lines that
// turn boundaries and agents' hooks run, several times a turn, when they
// carry no option: an empty line (create) and `hook AGENT [ARG...]`, with
// the options the grammar fills for them. They run without a parser:
// building even captureCLI's costs CPU spent before the scan can begin
// (docs/speed.md, "Small trees"). ok is false for any other line, which
// the parser reads. TestPlainLinesAreTheGrammars checks them against the
// grammar.
func plainLine(args []string) (g *Globals, cmd runner, ok bool) {
	line := &captureCLI{Globals: Globals{Color: "auto"}}
	switch {
	case len(args) == 0:
		return &line.Globals, &line.Create, true
	case len(args) >= 2 && args[0] == "hook" && !slices.ContainsFunc(args[1:], isOption):
		line.Hook.Agent = args[1]
		if len(args) > 2 {
			line.Hook.Args = args[2:]
		}
		return &line.Globals, &line.Hook, true
	}
	return nil, nil, false
}

// isOption reports whether a command line word is an option, or "--".
func isOption(arg string) bool { return strings.HasPrefix(arg, "-") }

// subcommand is the first argument that is neither an option nor the value
// of one: the command kong will run. `run git diff -- x` is run's, not
// diff's.
func subcommand(args []string) string {
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-C" || a == "--chdir" || a == "--color":
			i++
		case !isOption(a):
			return a
		}
	}
	return ""
}

// splitDashDash cuts args at the first "--"; after is nil without one.
func splitDashDash(args []string) (before, after []string) {
	for i, a := range args {
		if a == "--" {
			return args[:i], append([]string{}, args[i+1:]...)
		}
	}
	return args, nil
}

package cli

import "slices"

const checkpointHelp = `Snapshot the whole working tree (untracked files included, ignored files
excluded) as a commit under refs/checkpoints/, without touching the index,
HEAD or branches. Restore one with git rewind.`

// checkpointCLI is the grammar of git-checkpoint.
type checkpointCLI struct {
	Globals
	Create createCmd `cmd:"" default:"withargs" help:"Take a checkpoint now (the default command)."`
	List   listCmd   `cmd:"" help:"List checkpoints, newest first."`
	Show   showCmd   `cmd:"" help:"Show one checkpoint's record."`
	Diff   diffCmd   `cmd:"" help:"Show what changed between a checkpoint and the working tree or another checkpoint."`
	Status statusCmd `cmd:"" help:"Show the store, counts and any interrupted rewind."`
	Prune  pruneCmd  `cmd:"" help:"Apply retention now: delete old checkpoints' refs (never runs gc)."`
	Init   initCmd   `cmd:"" help:"Outside any git repository: create a private store here."`
	Doctor doctorCmd `cmd:"" help:"Check the store and its surroundings; say how to fix each problem."`
}

// Checkpoint runs git-checkpoint with args and returns its exit status.
func Checkpoint(args []string, sys *IO) int {
	var c checkpointCLI
	if before, rest := splitDashDash(args); rest != nil && slices.Contains(before, "diff") {
		// Paths after "--" are never flags or ids, even one named "k3".
		args, c.Diff.Paths = before, rest
	}
	return run("git checkpoint", &c, &c.Globals, args, sys, checkpointHelp)
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

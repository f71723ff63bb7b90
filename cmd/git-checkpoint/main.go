// Command git-checkpoint snapshots the working tree; git runs it as
// `git checkpoint`. See git-checkpoint(1).
package main

import (
	"os"

	"github.com/git-checkpoint/git-checkpoint/internal/cli"
)

func main() { os.Exit(cli.Checkpoint(os.Args[1:], cli.System())) }

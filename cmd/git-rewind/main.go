// Command git-rewind restores the working tree to a checkpoint; git runs it
// as `git rewind`. See git-rewind(1).
package main

import (
	"os"

	"github.com/git-checkpoint/git-checkpoint/internal/cli"
)

func main() { os.Exit(cli.Rewind(os.Args[1:], cli.System())) }

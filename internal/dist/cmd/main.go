// Command dist builds the release archives; `make dist` runs it. See
// package dist.
package main

import (
	"os"

	"github.com/git-checkpoint/git-checkpoint/internal/dist"
)

func main() { os.Exit(dist.Main(os.Args[1:], os.Environ(), os.Stdout, os.Stderr)) }

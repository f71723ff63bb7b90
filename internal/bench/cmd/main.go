// Command bench runs the side-by-side benchmark of DESIGN section 10; see
// docs/speed.md. `make bench` runs it on the binaries in bin/.
package main

import (
	"os"

	"github.com/git-checkpoint/git-checkpoint/internal/bench"
)

func main() { os.Exit(bench.Main(os.Args[1:], os.Environ(), os.Stdout, os.Stderr)) }

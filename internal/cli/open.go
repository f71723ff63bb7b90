package cli

import (
	"context"

	"github.com/git-checkpoint/git-checkpoint/internal/workspace"
)

// session is a command's working tree (package workspace) and what the
// command line adds to it: the process's streams, the global flags and
// the printer.
type session struct {
	*workspace.Workspace
	sys *IO
	g   *Globals
	out *printer
}

// open opens the working tree the command runs in.
func open(ctx context.Context, sys *IO, g *Globals) (*session, error) {
	return openFor(ctx, sys, g, false)
}

// openScanning is open for a command that scans the tree first thing
// under the lock: the scan begins beside discovery (capture.Early). The
// command calls Release when it is done, for the case it never locked.
func openScanning(ctx context.Context, sys *IO, g *Globals) (*session, error) {
	return openFor(ctx, sys, g, true)
}

// openFor is open, beginning the scan early when scan is set.
func openFor(ctx context.Context, sys *IO, g *Globals, scan bool) (*session, error) {
	w, err := workspace.Open(ctx, options(sys, g, scan))
	if err != nil {
		return nil, err
	}
	return &session{Workspace: w, sys: sys, g: g, out: newPrinter(sys, g)}, nil
}

// options are the workspace options of a command run with sys and g.
func options(sys *IO, g *Globals, scan bool) workspace.Options {
	return workspace.Options{Dir: g.Chdir, Environ: sys.Environ(), Now: sys.Now, Warnings: sys.Stderr, Prog: sys.prog, Scan: scan}
}

package git

import (
	"fmt"
	"strings"
	"time"
)

// The trace (GIT_CHECKPOINT_TRACE) says which git processes ran, one
// "trace: git ARGS" line each as it starts (tests count those), and how
// long each took and how long each step of a command took, so that the
// time of a slow command can be read off its trace:
//
//	trace: git status --porcelain=v2 ...
//	trace: 212.4 ms git status --porcelain=v2 ...
//	trace: phase scan 230.1 ms
//
// The lines with times never begin with "trace: git ", so counting the
// processes is unchanged.

// traceStart writes the line of a git process that starts.
func (r *Runner) traceStart(args []string) {
	if r.Trace != nil {
		fmt.Fprintf(r.Trace, "trace: git %s\n", strings.Join(args, " "))
	}
}

// traceEnd writes the wall time of a git process that ended, with its
// arguments cut short: a command line can name a hundred paths.
func (r *Runner) traceEnd(args []string, start time.Time) {
	if r.Trace == nil {
		return
	}
	line := strings.Join(args, " ")
	if len(line) > 100 {
		line = line[:100] + "..."
	}
	fmt.Fprintf(r.Trace, "trace: %.1f ms git %s\n", msSince(start), line)
}

// Phase marks the start of a step of a command (a lock wait, a journal
// read, a scan, the plan) and returns the function that ends it and
// traces its wall time. Without a trace it costs nothing.
func (r *Runner) Phase(name string) (end func()) {
	if r == nil || r.Trace == nil {
		return func() {}
	}
	start := time.Now()
	return func() { fmt.Fprintf(r.Trace, "trace: phase %s %.1f ms\n", name, msSince(start)) }
}

// Tracef writes a line about a step that ran no git process, such as how
// much of the journal was read. Without a trace it costs nothing.
func (r *Runner) Tracef(format string, args ...any) {
	if r != nil && r.Trace != nil {
		fmt.Fprintf(r.Trace, "trace: "+format+"\n", args...)
	}
}

func msSince(t time.Time) float64 { return float64(time.Since(t)) / float64(time.Millisecond) }

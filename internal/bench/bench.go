// Package bench measures git-checkpoint against git itself on synthetic
// repositories of 1k, 10k and 100k files, and checks the ratios the design
// sets as targets (DESIGN section 10). Every case runs in the same
// process, interleaved round by round, so a machine that slows down
// slows every case alike and the ratios stay meaningful. It asserts no
// timing in tests: the quick mode only proves that every case runs.
package bench

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// options are the command line of the benchmark.
type options struct {
	sizes  []int
	shapes []string
	rounds int
	cache  string
	bin    string
	tool   string
	quick  bool
	only   []string // case keys to run besides git status; all when empty
	disk   int      // per-tool checkpoints of the -disk mode; 0: the timed cases
	trace  string   // where each measured run's trace is appended; none when empty
	// stepback is the source stepback is imported from (rivals.go); ""
	// when it cannot run here.
	stepback string
	// nothing is the directory of the floor's program (buildNothing);
	// none when it could not be built.
	nothing string
}

// saveTrace appends one measured run's trace to the -trace file, headed by
// what it measured, so that a ratio can be read down to its git processes.
func (o *options) saveTrace(shape Shape, key string, round int, s sample) error {
	if o.trace == "" || len(s.trace) == 0 {
		return nil
	}
	f, err := os.OpenFile(o.trace, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	fmt.Fprintf(f, "## %d files, %s shape, %s, round %d: %.1f ms\n%s\n", shape.Files, shape.Name, key, round,
		float64(s.dur.Microseconds())/1000, s.trace)
	return f.Close()
}

// Main runs the benchmark with args and returns the exit status: 0 when
// every target judged at the sizes run holds (or in quick mode), 1 when
// one is missed, 2 on
// bad usage or a failure to run.
func Main(args []string, environ []string, stdout, stderr io.Writer) int {
	o, err := parseOptions(args, environ, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 2
	}
	logf := func(format string, a ...any) { fmt.Fprintf(stderr, "bench: "+format+"\n", a...) }
	if o.disk == 0 {
		if o.nothing, err = buildNothing(filepath.Join(o.cache, "scratch"), environ); err != nil {
			logf("the floor is not measured: %v", err)
		}
	}
	env := benchEnv(environ, filepath.Join(o.cache, "home"), o.bin, o.nothing)
	if err := os.MkdirAll(filepath.Join(o.cache, "home"), 0o755); err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 2
	}
	if o.tool == "auto" {
		o.tool = "changed"
		if _, err := runQuiet(o.cache, env, nil, "git", "checkpoint", "hook", "--help"); err == nil {
			o.tool = "hook"
		}
	}
	fmt.Fprintf(stdout, "# git-checkpoint benchmark\n\n%s; %d rounds, interleaved; medians.\n", describe(env, o), o.rounds)
	failed := false
	for _, n := range o.sizes {
		if o.disk > 0 {
			ok, err := diskSession(o, n, o.disk, env, stdout, logf)
			if err != nil {
				fmt.Fprintf(stderr, "bench: %d files: %v\n", n, err)
				return 2
			}
			failed = failed || (!ok && n == targetSize)
			continue
		}
		for _, name := range o.shapes {
			if isReal(name) {
				continue // measured once, below
			}
			res, err := measureSize(o, shapeFor(name, n), env, logf)
			if err != nil {
				fmt.Fprintf(stderr, "bench: %d files, %s shape: %v\n", n, name, err)
				return 2
			}
			if !report(stdout, res, !o.quick) {
				failed = true
			}
		}
	}
	for _, name := range o.shapes {
		if !isReal(name) || o.disk > 0 {
			continue
		}
		res, err := measureSize(o, shapeFor(name, 0), env, logf)
		if err != nil {
			fmt.Fprintf(stderr, "bench: %s tree: %v\n", name, err)
			return 2
		}
		if !report(stdout, res, !o.quick) {
			failed = true
		}
	}
	if failed {
		return 1
	}
	return 0
}

// targetSize is the tree size at which the design's targets apply.
const targetSize = 100000

// largeSize is the chromium-scale tree, measured only when asked for
// (-sizes 500000, make bench-500k): 5 to 6 GB of disk a shape, built once.
const largeSize = 500000

func parseOptions(args, environ []string, stderr io.Writer) (*options, error) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	sizes := fs.String("sizes", "1000,10000,100000", "tree sizes in files, comma separated")
	shapes := fs.String("shapes", "default,wide", "tree shapes, comma separated: default (nested, source-like sizes), wide (flat, uniform sizes, long journal), "+
		"and the real trees, measured once whatever -sizes says: goroot (a copy of go env GOROOT), node_modules (a Next.js application after npm ci), kubernetes (three releases from the Go module proxy)")
	o := &options{}
	fs.IntVar(&o.rounds, "rounds", 9, "measured rounds per size (after one warm-up round)")
	fs.StringVar(&o.cache, "cache", "", "where the synthetic repositories are kept (default: the user cache directory)")
	fs.StringVar(&o.bin, "bin", "", "directory holding the git-checkpoint and git-rewind to measure (required)")
	fs.StringVar(&o.tool, "tool", "auto", "per-tool capture through: hook (Claude Code's hook command, as install writes it), changed (git checkpoint --changed), or auto")
	only := fs.String("cases", "", "only these cases (keys, comma separated) beside git status, e.g. tool,parallel; targets of the others are not judged")
	fs.IntVar(&o.disk, "disk", 0, "instead of the timed cases, take this many per-tool checkpoints of one-file edits (1000 is a long session) and report what .git grew by")
	fs.StringVar(&o.trace, "trace", "", "append the trace of every measured run (each git process and rewind step with its time) to this file")
	stepbackDir := fs.String("stepback", "", "a checkout of github.com/Archerkattri/stepback, whose method is measured beside ours (default: DIR/stepback of -cache)")
	fs.BoolVar(&o.quick, "quick", false, "small trees and few rounds, to prove the benchmark runs; judges no timing")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if o.quick {
		*sizes, o.rounds = "1000", 2
	}
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 200 {
			return nil, fmt.Errorf("bad size %q: want a number of files, at least 200", s)
		}
		o.sizes = append(o.sizes, n)
	}
	if *only != "" {
		o.only = strings.Split(*only, ",")
	}
	for _, s := range strings.Split(*shapes, ",") {
		s = strings.TrimSpace(s)
		if s != "default" && s != "wide" && !isReal(s) {
			return nil, fmt.Errorf("bad shape %q: want default, wide, %s", s, strings.Join(realNames, ", "))
		}
		o.shapes = append(o.shapes, s)
	}
	if o.rounds < 1 {
		return nil, fmt.Errorf("-rounds must be at least 1")
	}
	if o.bin == "" {
		return nil, fmt.Errorf("-bin is required: the directory holding git-checkpoint and git-rewind (make build puts them in bin/)")
	}
	abs, err := filepath.Abs(o.bin)
	if err != nil {
		return nil, err
	}
	o.bin = abs
	for _, name := range []string{"git-checkpoint", "git-rewind"} {
		if _, err := os.Stat(filepath.Join(o.bin, name)); err != nil {
			return nil, fmt.Errorf("no %s in %s: run 'make build' first", name, o.bin)
		}
	}
	switch o.tool {
	case "auto", "hook", "changed":
	default:
		return nil, fmt.Errorf("-tool must be auto, hook or changed")
	}
	if o.cache == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			return nil, fmt.Errorf("no cache directory (%v): pass -cache DIR", err)
		}
		o.cache = filepath.Join(dir, "git-checkpoint", "bench")
	}
	if *stepbackDir == "" {
		*stepbackDir = filepath.Join(o.cache, "stepback")
	}
	if o.stepback, err = stepbackSource(*stepbackDir); err != nil {
		fmt.Fprintf(stderr, "bench: stepback's method is not measured: %v\n", err)
	}
	return o, os.MkdirAll(o.cache, 0o755)
}

// benchEnv is the environment of every measured command: the caller's
// PATH with the directories bins first (the binaries under test, the
// floor's program; an empty one is left out), and nothing of the caller's git
// configuration, so that a personal core.fsmonitor or untracked cache
// cannot make one side faster than the other.
func benchEnv(environ []string, home string, bins ...string) []string {
	var env []string
	for _, kv := range environ {
		name, val, _ := strings.Cut(kv, "=")
		switch {
		case name == "PATH":
			dirs := append(slices.DeleteFunc(slices.Clone(bins), func(d string) bool { return d == "" }), val)
			env = append(env, "PATH="+strings.Join(dirs, string(os.PathListSeparator)))
		case name == "TMPDIR":
			env = append(env, kv)
		}
	}
	return append(env, "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_ATTR_NOSYSTEM=1", "LC_ALL=C", "TZ=UTC",
		"GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@localhost",
		"GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@localhost",
		"GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z",
		"GIT_CHECKPOINT_TRACE=1")
}

func describe(env []string, o *options) string {
	v, _ := runQuiet(o.cache, env, nil, "git", "version")
	return fmt.Sprintf("%s, %d CPUs, per-tool capture through %q", strings.TrimSpace(string(v)), runtime.NumCPU(), o.tool)
}

// result holds the samples of every case at one size.
type result struct {
	files   int
	shape   string
	cases   []benchCase
	samples map[string][]sample
}

func measureSize(o *options, shape Shape, env []string, logf func(string, ...any)) (*result, error) {
	fx, err := openFixture(o.cache, shape, env, logf)
	if err != nil {
		return nil, err
	}
	shape = fx.shape // a real tree's size is known once it is built
	n := shape.Files
	if err := fx.reset(); err != nil {
		return nil, err
	}
	scratch := filepath.Join(o.cache, "scratch")
	if err := os.MkdirAll(scratch, 0o755); err != nil {
		return nil, err
	}
	b := newBed(fx, env, scratch, o.tool)
	b.rv.stepback = o.stepback
	defer b.closeRivals()
	selected := func(key string) bool { return len(o.only) == 0 || key == "status" || slices.Contains(o.only, key) }
	cases := slices.DeleteFunc(append(b.cases(), b.rivalCases()...), func(c benchCase) bool { return !selected(c.key) })
	if o.nothing != "" {
		// Beside every selection: it is what the captures' ratios are
		// read against.
		cases = append(cases, b.startCase())
		if _, err := os.Stat(filepath.Join(o.nothing, putName)); err == nil && selected("rewind100") {
			cases = append(cases, b.putCase())
		}
	}
	res := &result{files: n, shape: shape.Name, cases: cases, samples: map[string][]sample{}}
	start := time.Now()
	if err := o.runRounds(res, shape, cases); err != nil {
		return nil, err
	}
	if selected("fsmon") {
		monitored, unwatch := b.fsmonitorCases()
		err := o.runRounds(res, shape, monitored)
		unwatch()
		if err != nil {
			return nil, err
		}
		res.cases = append(res.cases, monitored...)
	}
	logf("%d files, %s shape: %d rounds in %s", n, shape.Name, o.rounds, time.Since(start).Round(time.Second))
	return res, fx.reset()
}

// runRounds runs the cases' rounds, interleaved, and keeps their samples.
func (o *options) runRounds(res *result, shape Shape, cases []benchCase) error {
	for round := 0; round <= o.rounds; round++ {
		// Round 0 warms the page cache and seeds the private index; it
		// is not counted. Each round starts at a different case so no
		// case always runs right after the same one.
		for k := range cases {
			c := cases[(k+round)%len(cases)]
			if err := c.setup(round); err != nil {
				return fmt.Errorf("%s: setup: %w", c.key, err)
			}
			s, err := c.run(round)
			if err != nil {
				return fmt.Errorf("%s: %w", c.key, err)
			}
			if err := c.teardown(round); err != nil {
				return fmt.Errorf("%s: %w", c.key, err)
			}
			if round > 0 {
				if err := o.saveTrace(shape, c.key, round, s); err != nil {
					return err
				}
				s.stdout, s.trace = nil, nil
				res.samples[c.key] = append(res.samples[c.key], s)
			}
		}
	}
	return nil
}

func (r *result) median(key string) time.Duration {
	var d []time.Duration
	for _, s := range r.samples[key] {
		d = append(d, s.dur)
	}
	return Median(d)
}

// Median is the middle value of v, the mean of the two middle ones for
// an even count, 0 for none; v is left as it is.
func Median[T ~int64 | ~float64](v []T) T {
	if len(v) == 0 {
		return 0
	}
	v = slices.Clone(v)
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

func (r *result) cpu(key string) time.Duration {
	var d []time.Duration
	for _, s := range r.samples[key] {
		d = append(d, s.cpu)
	}
	return Median(d)
}

func (r *result) peak(key string) int64 {
	var m int64
	for _, s := range r.samples[key] {
		m = max(m, s.rssKB)
	}
	return m
}

func (r *result) procs(key string) string {
	var seen []int
	for _, s := range r.samples[key] {
		if !slices.Contains(seen, s.procs) {
			seen = append(seen, s.procs)
		}
	}
	slices.Sort(seen)
	var out []string
	for _, n := range seen {
		out = append(out, strconv.Itoa(n))
	}
	return strings.Join(out, "/")
}

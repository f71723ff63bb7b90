package session

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/bench"
	"github.com/git-checkpoint/git-checkpoint/internal/cli"
)

// The measurement's options; without -session.full, the quick mode runs.
var (
	fullFlag    = flag.Bool("session.full", false, "measure (make bench-session) instead of the quick mode")
	sizesFlag   = flag.String("session.sizes", "10000,100000", "tree sizes in files, comma separated")
	roundsFlag  = flag.Int("session.rounds", 3, "rounds, each a session with the hooks and one without, in alternating order")
	turnsFlag   = flag.Int("session.turns", 30, "turns of a session")
	callsFlag   = flag.Int("session.calls", 200, "tool calls of a session")
	latencyFlag = flag.String("session.latency", "2s,5s", "a real model's time per reply, for the share it would be with one")
	cacheFlag   = flag.String("session.cache", "", "where the trees are kept (default: make bench's, in the user cache directory)")
	binFlag     = flag.String("session.bin", "", "directory of the git-checkpoint to measure (default: this test binary)")
	tracesFlag  = flag.String("session.traces", "", "keep the traced sessions' hook traces here, a directory per size and arm (default: removed)")
)

// goalSize and goalShare are the goal: the hooks add under 5% to
// a session at 100,000 files with the fake model.
const (
	goalSize  = 100000
	goalShare = 0.05
)

// TestMain lets the test binary be git-checkpoint, so the quick mode
// runs this build's hooks without a separate go build.
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == "git-checkpoint" {
		os.Exit(cli.Checkpoint(os.Args[1:], cli.System()))
	}
	os.Exit(m.Run())
}

// options are the measurement's flags, read.
type options struct {
	quick     bool
	sizes     []int
	rounds    int
	turns     int
	calls     int
	latencies []time.Duration
	cache     string
	bin       string
	traces    string // where the traces are kept, "" for nowhere
}

// TestSession runs the session benchmark: by default its quick mode (one
// round of a two-turn session on a 1,000-file tree, and the traced
// session), which proves every part runs and judges no timing; with
// -session.full the measurement, its report on stdout.
func TestSession(t *testing.T) {
	o, err := readOptions(t)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	w := io.Writer(&out)
	if !o.quick {
		w = io.MultiWriter(os.Stdout, &out)
	}
	fmt.Fprintf(w, "# A real agent's session, with the hooks and without\n\n")
	for _, n := range o.sizes {
		if err := measure(t, o, n, w); err != nil {
			t.Fatalf("%d files: %v", n, err)
		}
	}
	if o.quick {
		t.Logf("quick mode (judges nothing):\n%s", out.String())
		for _, want := range []string{"| 1 | ", "| median | ", "per tool call", "per turn", "With a real model at 2 s a reply",
			"With the hooks: ", "Hooks running true: ", "Hooks running true are the floor",
			"| UserPromptSubmit |", "| PostToolUse Write |", "| PostToolUse Edit |", "| PostToolUse Bash |", "| PostToolUse Read |", "| Stop |"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("the report lacks %q", want)
			}
		}
		// The watched session runs wherever watchman does; .ci/run
		// installs it, so in CI its absence is a failure.
		switch {
		case strings.Contains(out.String(), "Hooks and watchman: "):
		case !strings.Contains(out.String(), "No session with watchman: "):
			t.Errorf("the report has neither the session with watchman nor why it is missing")
		case os.Getenv("CI") == "true":
			t.Errorf("no session with watchman in CI, where .ci/run installs it")
		}
	}
}

func readOptions(t *testing.T) (*options, error) {
	o := &options{quick: !*fullFlag, rounds: *roundsFlag, turns: *turnsFlag, calls: *callsFlag, cache: *cacheFlag, bin: *binFlag, traces: *tracesFlag}
	sizes := *sizesFlag
	if o.quick {
		sizes, o.rounds, o.turns, o.calls, o.cache = "1000", 1, 2, 14, t.TempDir()
	}
	for _, s := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1000 {
			return nil, fmt.Errorf("bad -session.sizes %q: want numbers of files, at least 1000", s)
		}
		o.sizes = append(o.sizes, n)
	}
	for _, s := range strings.Split(*latencyFlag, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(s))
		if err != nil {
			return nil, fmt.Errorf("bad -session.latency %q: %v", s, err)
		}
		o.latencies = append(o.latencies, d)
	}
	if o.rounds < 1 || o.turns < 1 || o.calls < o.turns {
		return nil, fmt.Errorf("want at least one round, one turn, and a tool call a turn")
	}
	if o.cache == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			return nil, fmt.Errorf("no cache directory (%v): pass -session.cache DIR", err)
		}
		o.cache = filepath.Join(dir, "git-checkpoint", "bench")
	}
	if o.bin == "" {
		self, err := os.Executable()
		if err != nil {
			return nil, err
		}
		o.bin = t.TempDir()
		if err := os.Symlink(self, filepath.Join(o.bin, "git-checkpoint")); err != nil {
			return nil, err
		}
	} else if _, err := os.Stat(filepath.Join(o.bin, "git-checkpoint")); err != nil {
		return nil, fmt.Errorf("no git-checkpoint in %s: run 'make build' first", o.bin)
	}
	abs, err := filepath.Abs(o.bin)
	o.bin = abs
	return o, err
}

// measure runs the rounds at one size, then a traced session of each arm
// with our hooks, and reports them.
func measure(t *testing.T, o *options, n int, w io.Writer) error {
	home := filepath.Join(o.cache, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return err
	}
	env := bench.Env(os.Environ(), home, o.bin)
	logf := func(format string, a ...any) { fmt.Fprintf(os.Stderr, "bench-session: "+format+"\n", a...) }
	tree, err := bench.OpenTree(o.cache, n, env, logf)
	if err != nil {
		return err
	}
	b := &bed{t: t, o: o, tree: tree, files: n, env: env}
	arms := []arm{hooked, idle, bare}
	mon, why := newMonitor(tree.Dir())
	if mon != nil {
		b.monitor = mon
		arms = append(arms, watched)
	} else {
		logf("no session with watchman: %s", why)
	}
	times := map[arm][]time.Duration{}
	version := ""
	for round := 1; round <= o.rounds; round++ {
		// The order turns each round: no arm always runs after the
		// same one, which has warmed the page cache for it.
		order := slices.Clone(arms)
		k := (round - 1) % len(order)
		order = append(order[k:], order[:k]...)
		for _, a := range order {
			r, err := b.session(round, a, "")
			if err != nil {
				return fmt.Errorf("round %d, %s: %w", round, a, err)
			}
			version = r.version
			logf("%d files, round %d, %-18s %s", n, round, a, r.elapsed.Round(time.Millisecond))
			times[a] = append(times[a], r.elapsed)
		}
	}
	traces := map[arm][]hookTrace{}
	for _, a := range []arm{hooked, watched} {
		if !slices.Contains(arms, a) {
			continue
		}
		traceDir := t.TempDir()
		if o.traces != "" {
			traceDir = filepath.Join(o.traces, fmt.Sprintf("%d-%s", n, strings.ReplaceAll(a.String(), " ", "-")))
			if err := os.MkdirAll(traceDir, 0o755); err != nil {
				return err
			}
		}
		if _, err := b.session(o.rounds+1, a, traceDir); err != nil {
			return fmt.Errorf("the traced session %s: %w", a, err)
		}
		if traces[a], err = readTraces(traceDir); err != nil {
			return err
		}
	}
	p := newPlan(tree, tree.Dir(), n, o.turns, o.calls, 0)
	report(w, o, n, version, p, times, why, traces)
	return tree.Reset()
}

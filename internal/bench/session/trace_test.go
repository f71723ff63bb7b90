package session

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/bench"
)

// traceHooks rewrites the hook commands of the Claude Code settings that
// install wrote so that each hook, run with GIT_CHECKPOINT_TRACE, leaves
// three files in dir: its event (EVENT.PID.in), its trace (.trace) and its
// wall time (.time, bash's time of the hook command alone). Saving the
// event and timing it add to the session, which is why the traced session
// is not one of the timed ones.
func traceHooks(settings, dir string) error {
	return rewriteHooks(settings, func(event string) string {
		f := filepath.Join(dir, event) + `.$$`
		return fmt.Sprintf(`bash -c 'TIMEFORMAT=%%3R; cat > %[1]s.in; { time git-checkpoint hook claude < %[1]s.in 2> %[1]s.trace; } 2> %[1]s.time'`, f)
	})
}

// rewriteHooks sets the command of every hook in Claude Code's settings
// file to what command returns for its event.
func rewriteHooks(settings string, command func(event string) string) error {
	raw, err := os.ReadFile(settings)
	if err != nil {
		return err
	}
	var s map[string]any
	if err := json.Unmarshal(raw, &s); err != nil {
		return err
	}
	hooks, _ := s["hooks"].(map[string]any)
	rewritten := 0
	for event, groups := range hooks {
		list, _ := groups.([]any)
		for _, g := range list {
			group, _ := g.(map[string]any)
			inner, _ := group["hooks"].([]any)
			for _, h := range inner {
				if h, ok := h.(map[string]any); ok {
					h["command"] = command(event)
					rewritten++
				}
			}
		}
	}
	if rewritten == 0 {
		// The arm would time the real hooks under another name.
		return fmt.Errorf("%s: no hook command to rewrite in its hooks", settings)
	}
	out, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(settings, out, 0o644)
}

// hookTrace is what one traced hook took.
type hookTrace struct {
	kind    string // the event, and the tool of a tool event
	total   float64
	procs   int
	gitMS   float64 // the git processes' wall times, summed
	phases  map[string]float64
	scanned bool // it ran a scan of the whole tree (git status or diff)
}

var (
	gitTimeRE = regexp.MustCompile(`^trace: ([0-9.]+) ms git `)
	phaseRE   = regexp.MustCompile(`^trace: phase (.+) ([0-9.]+) ms$`)
	statRE    = regexp.MustCompile(`^trace: stat check: .*, ([0-9.]+) ms$`)
)

// readTraces reads the hooks traceHooks left in dir.
func readTraces(dir string) ([]hookTrace, error) {
	ins, err := filepath.Glob(filepath.Join(dir, "*.in"))
	if err != nil {
		return nil, err
	}
	var out []hookTrace
	for _, in := range ins {
		base := strings.TrimSuffix(in, ".in")
		h := hookTrace{phases: map[string]float64{}}
		raw, err := os.ReadFile(in)
		if err != nil {
			return nil, err
		}
		var ev struct {
			Event string `json:"hook_event_name"`
			Tool  string `json:"tool_name"`
		}
		json.Unmarshal(raw, &ev)
		h.kind = strings.TrimSpace(ev.Event + " " + ev.Tool)
		tm, err := os.ReadFile(base + ".time")
		if err != nil {
			return nil, err
		}
		if h.total, err = strconv.ParseFloat(strings.TrimSpace(string(tm)), 64); err != nil {
			return nil, fmt.Errorf("%s.time: %q is no time", base, tm)
		}
		h.total *= 1000
		err = scanLines(base+".trace", func(l string) {
			switch {
			case strings.HasPrefix(l, "trace: git "):
				h.procs++
			case gitTimeRE.MatchString(l):
				ms, _ := strconv.ParseFloat(gitTimeRE.FindStringSubmatch(l)[1], 64)
				h.gitMS += ms
				if strings.Contains(l, " git status ") || strings.Contains(l, " git diff ") {
					h.scanned = true
				}
			case statRE.MatchString(l):
				ms, _ := strconv.ParseFloat(statRE.FindStringSubmatch(l)[1], 64)
				h.phases["stat check"] += ms
			case phaseRE.MatchString(l):
				m := phaseRE.FindStringSubmatch(l)
				ms, _ := strconv.ParseFloat(m[2], 64)
				h.phases[m[1]] += ms
			}
		})
		if err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, nil
}

// breakdownPhases are the steps of a hook the table shows beside its
// git processes, by their names in the trace (the stat check's line is
// kept under its own): the stat check, the lock, the pack the tool
// writes, the journal's synced line, the sync after the refs (their
// directories, or the filesystem).
var breakdownPhases = []string{"stat check", "lock wait", "pack", "journal append", "sync"}

// breakdown is the table of the traced session's hooks by kind: how many,
// and the median of each part of one.
func breakdown(traces []hookTrace) string {
	byKind := map[string][]hookTrace{}
	for _, h := range traces {
		byKind[h.kind] = append(byKind[h.kind], h)
	}
	kinds := make([]string, 0, len(byKind))
	for k := range byKind {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	var b strings.Builder
	b.WriteString("| hook | count | wall | git processes | their wall, summed | stat check | lock wait | pack | journal line (synced) | sync | the rest: start, event, work in process | scans of the tree | sum of walls |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	var all float64
	for _, k := range kinds {
		hs := byKind[k]
		col := func(f func(hookTrace) float64) float64 {
			v := make([]float64, len(hs))
			for i, h := range hs {
				v[i] = f(h)
			}
			return bench.Median(v)
		}
		sum, scans := 0.0, 0
		for _, h := range hs {
			sum += h.total
			if h.scanned {
				scans++
			}
		}
		all += sum
		fmt.Fprintf(&b, "| %s | %d | %.1f ms | %.0f | %.1f ms |", k, len(hs),
			col(func(h hookTrace) float64 { return h.total }),
			col(func(h hookTrace) float64 { return float64(h.procs) }),
			col(func(h hookTrace) float64 { return h.gitMS }))
		for _, ph := range breakdownPhases {
			fmt.Fprintf(&b, " %.1f ms |", col(func(h hookTrace) float64 { return h.phases[ph] }))
		}
		fmt.Fprintf(&b, " %.1f ms | %d | %.2f s |\n", col(hookTrace.rest), scans, sum/1000)
	}
	fmt.Fprintf(&b, "| all | %d | | | | | | | | | | | %.2f s |\n", len(traces), all/1000)
	return b.String()
}

// rest is the wall time of a hook outside its git processes and traced
// steps: the program's start and exit, reading the event, and the work
// it does in process. Two git processes at once (a scan's halves) make
// it smaller than it is.
func (h hookTrace) rest() float64 {
	r := h.total - h.gitMS
	for _, ph := range breakdownPhases {
		r -= h.phases[ph]
	}
	return max(0, r)
}

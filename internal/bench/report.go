package bench

import (
	"cmp"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// target is one ratio the design sets: num/den at most (or at least) limit.
type target struct {
	what     string
	num, den string
	limit    float64
	atLeast  bool
	at       int // the tree size it is judged at; 0: targetSize
	// goal marks a target of work still under way: judged and shown
	// ("met" or "not yet"), it does not fail the run, so that the
	// design's targets keep deciding make bench's exit status.
	goal bool
	// everyShape judges it on every tree shape; the others are the
	// design's figures for make bench's own tree (the default shape) and
	// are shown for information on the others.
	everyShape bool
	// anySize judges it at every tree size, not only at `at`.
	anySize bool
}

// targets are DESIGN section 10's, as ratios of medians from one run, and
// the goals of the work on speed at every size (goal: shown, not failing).
func targets() []target {
	out := []target{
		{what: "capture, nothing changed / git status", num: "clean", den: "status", limit: 1.1},
		{what: "capture, nothing changed / git status, 10k files", num: "clean", den: "status", limit: 1.3, at: 10000, goal: true},
		{what: "capture, nothing changed / git status, 1k files", num: "clean", den: "status", limit: 2, at: 1000, goal: true},
		{what: "capture, 1 file changed / git status", num: "change1", den: "status", limit: 1.3},
		{what: "capture, 100 files changed / git status", num: "change100", den: "status", limit: 2},
		{what: "fresh index / capture, nothing changed", num: "fresh", den: "clean", limit: 4, atLeast: true},
		{what: "fresh index / capture, 1 file changed", num: "fresh", den: "change1", limit: 4, atLeast: true},
		{what: "fresh index / capture, 100 files changed", num: "fresh", den: "change100", limit: 4, atLeast: true},
		{what: "fresh index / capture, 10 new files", num: "fresh", den: "new10", limit: 4, atLeast: true},
		{what: "per-tool capture / git status", num: "tool", den: "status", limit: 0.3},
		{what: "10 parallel per-tool captures / git status", num: "parallel", den: "status", limit: 1, goal: true},
		{what: "rewind of 100 files / git status", num: "rewind100", den: "status", limit: 3, everyShape: true},
		{what: "rewind of 100 files / git status (goal)", num: "rewind100", den: "status", limit: 1.5, everyShape: true, goal: true},
		{what: "rewind of 100 files / git status, 10k files", num: "rewind100", den: "status", limit: 4, at: 10000, everyShape: true, goal: true},
		{what: "rewind of 100 files / git status, 10k files (goal)", num: "rewind100", den: "status", limit: 2, at: 10000, everyShape: true, goal: true},
		{what: "rewind of 100 files / git status, 1k files", num: "rewind100", den: "status", limit: 4, at: 1000, everyShape: true, goal: true},
		{what: "rewind of 100 files, one the .gitignore / git status (goal)", num: "rewindignore", den: "status", limit: 1.5, everyShape: true, goal: true},
		{what: "capture, nothing changed, fsmonitor / git status", num: "fsmon", den: "status", limit: 0.3, goal: true},
		// A program writing to the disk at most doubles a hook or a
		// rewind: they wait for their own writes, not for its (writer.go).
		{what: "per-tool capture beside a program writing to the disk / per-tool capture", num: "toolwriter", den: "tool", limit: 2, anySize: true, goal: true},
		{what: "rewind of 100 files beside a program writing to the disk / rewind of 100 files", num: "rewindwriter", den: "rewind100", limit: 2, anySize: true, goal: true},
		// Chromium scale: make bench-500k.
		{what: "capture, nothing changed / git status, 500k files", num: "clean", den: "status", limit: 1.1, at: largeSize, goal: true},
		{what: "capture, 1 file changed / git status, 500k files", num: "change1", den: "status", limit: 1.2, at: largeSize, goal: true},
		{what: "capture, 100 files changed / git status, 500k files", num: "change100", den: "status", limit: 1.5, at: largeSize, goal: true},
		{what: "per-tool capture / git status, 500k files", num: "tool", den: "status", limit: 0.05, at: largeSize, goal: true},
		{what: "rewind of 100 files / git status, 500k files", num: "rewind100", den: "status", limit: 1.3, at: largeSize, goal: true},
		{what: "capture, nothing changed, fsmonitor / git status, 500k files", num: "fsmon", den: "status", limit: 0.3, at: largeSize, goal: true},
	}
	return append(out, rivalTargets()...)
}

// report prints one size's table and its targets, and returns whether all
// targets hold. judged says whether targets are judged at all (not in
// quick mode); a target is judged at its own size, shown for information
// at the others.
func report(w io.Writer, r *result, judged bool) bool {
	status := r.median("status")
	fmt.Fprintf(w, "\n## %s files, %s shape\n\n", Thousands(r.files), r.shape)
	fmt.Fprintf(w, "| case | median | x git status | CPU | peak RSS | git processes |\n|---|---:|---:|---:|---:|---:|\n")
	for _, c := range r.cases {
		m := r.median(c.key)
		fmt.Fprintf(w, "| %s | %s | %.2fx | %s | %.1f MB | %s |\n", c.label, ms(m), ratio(m, status),
			ms(r.cpu(c.key)), float64(r.peak(c.key))/1024, r.procs(c.key))
	}
	fmt.Fprintf(w, "\n| target | ratio | limit | |\n|---|---:|---:|---|\n")
	ok := true
	for _, t := range targets() {
		if len(r.samples[t.den]) == 0 {
			continue // a case left out with -cases
		}
		if len(r.samples[t.num]) == 0 {
			fmt.Fprintf(w, "| %s | - | <= %sx | skipped (left out with -cases, or the case could not run) |\n", t.what, limitText(t.limit))
			continue
		}
		v := ratio(r.median(t.num), r.median(t.den))
		pass := v <= t.limit
		limit := fmt.Sprintf("<= %sx", limitText(t.limit))
		if t.atLeast {
			pass, limit = v >= t.limit, fmt.Sprintf(">= %sx", limitText(t.limit))
		}
		verdict := "pass"
		switch {
		case !judged && t.anySize:
			verdict = "(not judged in quick mode)"
		case !judged || (!t.anySize && r.files != cmp.Or(t.at, targetSize)):
			verdict = fmt.Sprintf("(judged at %s files)", Thousands(cmp.Or(t.at, targetSize)))
		case r.shape != "default" && !t.everyShape:
			verdict = "(judged on the default shape)"
		case t.goal && pass:
			verdict = "met (goal)"
		case t.goal:
			verdict = "not yet (goal)" + r.belowFloor(t)
		case !pass:
			verdict, ok = "FAIL"+r.belowFloor(t), false
		}
		fmt.Fprintf(w, "| %s | %.2fx | %s | %s |\n", t.what, v, limit, verdict)
	}
	if f := r.floor(); f > 0 {
		fmt.Fprintf(w, "| floor of a capture: git status + git running a Go program that does nothing / git status | %.2fx | | the least a capture typed as git checkpoint that scans with git can cost here |\n", f)
	}
	if f := r.rewindFloor(); f > 0 {
		fmt.Fprintf(w, "| floor of a rewind of 100 files: git status + git running a Go program that puts them back durably / git status | %.2fx | | the least a rewind typed as git rewind that scans with git and survives a power loss can cost here |\n", f)
	}
	reportRivals(w, r)
	return ok
}

// reportRivals prints the tree's table of ours against each rival's
// method, as ratios of medians from this run (ours / theirs: under 1,
// ours is faster).
func reportRivals(w io.Writer, r *result) {
	var cols []rival
	for _, rv := range rivals {
		for _, row := range rivalRows {
			if k := rv.caseKey(row.theirs); k != "" && len(r.samples[k]) > 0 {
				cols = append(cols, rv)
				break
			}
		}
	}
	if len(cols) == 0 {
		return
	}
	fmt.Fprintf(w, "\n### Ours / the rivals' methods, %s files, %s shape (under 1x: ours is faster)\n\n| ours | ms |", Thousands(r.files), r.shape)
	for _, rv := range cols {
		fmt.Fprintf(w, " %s |", rv.name)
	}
	fmt.Fprintf(w, "\n|---|---:|%s\n", strings.Repeat("---:|", len(cols)))
	for _, row := range rivalRows {
		if len(r.samples[row.ours]) == 0 {
			continue
		}
		fmt.Fprintf(w, "| %s | %s |", row.what, ms(r.median(row.ours)))
		for _, rv := range cols {
			k := rv.caseKey(row.theirs)
			if k == "" || len(r.samples[k]) == 0 {
				fmt.Fprintf(w, " - |")
				continue
			}
			fmt.Fprintf(w, " %.2fx (%s) |", ratio(r.median(row.ours), r.median(k)), ms(r.median(k)))
		}
		fmt.Fprintln(w)
	}
}

// belowFloor says, for a missed target against git status of a capture
// that scans the whole tree with git (typed as `git checkpoint`, without
// a file system monitor, finding a change) or of the rewind, that its
// limit is below the floor measured here, when it is. A capture of an
// unchanged tree has no such floor: the stat check spares it the scan.
// A target against a rival's method has none either: the floors are
// ratios to git status.
func (r *result) belowFloor(t target) string {
	if t.den != "status" {
		return ""
	}
	var f float64
	switch t.num {
	case "change1", "change100":
		f = r.floor()
	case "rewind100", "rewindignore":
		f = r.rewindFloor()
	}
	if f <= t.limit || t.atLeast {
		return ""
	}
	return fmt.Sprintf(": below the floor here, %.2fx", f)
}

// limitText prints a limit with the decimals it has: 0.05, not 0.1.
func limitText(l float64) string { return strconv.FormatFloat(l, 'f', -1, 64) }

func ratio(a, b time.Duration) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func ms(d time.Duration) string {
	return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond))
}

// Thousands writes n with a comma between each three digits.
func Thousands(n int) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

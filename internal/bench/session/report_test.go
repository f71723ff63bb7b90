package session

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/bench"
)

// report prints one size's rounds, what the hooks added per tool call,
// per turn and as a share of the session (with watchman too, where it
// ran; noWatch says why not), that share with a real model's latency,
// the floor any hook sets, the goal's verdict, and the traced sessions'
// breakdowns.
func report(w io.Writer, o *options, n int, version string, p *plan, times map[arm][]time.Duration, noWatch string, traces map[arm][]hookTrace) {
	var tools []string
	for _, k := range []string{"Write", "Edit", "Bash", "Read"} {
		tools = append(tools, fmt.Sprintf("%d %s", p.tools[k], k))
	}
	fmt.Fprintf(w, "## Claude Code %s, %s files: %d turns, %d tool calls (%s); %d model replies, %d of them with parallel calls\n\n",
		version, bench.Thousands(n), o.turns, p.calls, strings.Join(tools, ", "), p.replies, p.parallel)
	if noWatch != "" {
		fmt.Fprintf(w, "No session with watchman: %s.\n\n", noWatch)
	}
	arms := []arm{hooked, watched, idle, bare}
	if len(times[watched]) == 0 {
		arms = slices.Delete(arms, 1, 2)
	}
	without := times[bare]
	added := map[arm][]time.Duration{}
	head, rule := "| round |", "|---|"
	for _, a := range arms {
		head, rule = head+" "+a.String()+" |", rule+"---:|"
	}
	for _, a := range arms[:len(arms)-1] {
		head, rule = head+" added, "+a.String()+" |", rule+"---:|"
		for i := range without {
			added[a] = append(added[a], times[a][i]-without[i])
		}
	}
	fmt.Fprintf(w, "%s\n%s\n", head, rule)
	row := func(label string, cell func([]time.Duration) string) {
		line := "| " + label + " |"
		for _, a := range arms {
			line += " " + cell(times[a]) + " |"
		}
		for _, a := range arms[:len(arms)-1] {
			line += " " + cell(added[a]) + " |"
		}
		fmt.Fprintln(w, line)
	}
	for i := range without {
		row(fmt.Sprint(i+1), func(d []time.Duration) string { return secs(d[i]) })
	}
	row("median", func(d []time.Duration) string { return secs(bench.Median(d)) })
	base := bench.Median(without)
	share := func(a arm) float64 { return float64(bench.Median(added[a])) / float64(base) }
	fmt.Fprintln(w)
	for _, a := range arms[:len(arms)-1] {
		add := bench.Median(added[a])
		fmt.Fprintf(w, "%s: %.1f ms per tool call, %.0f ms per turn, %.1f%% of the session (the fake model answers at once: the worst case; added is the median of each round's difference).",
			strings.ToUpper(a.String()[:1])+a.String()[1:], ms(add)/float64(p.calls), ms(add)/float64(o.turns), 100*share(a))
		for _, l := range o.latencies {
			real := base + time.Duration(p.replies)*l
			fmt.Fprintf(w, " With a real model at %s a reply, %.2f%%.", secondsText(l), 100*float64(add)/float64(real))
		}
		fmt.Fprintln(w)
	}
	floor := share(idle)
	fmt.Fprintf(w, "(A real model's share assumes %d replies and the session %s without the hooks. Hooks running true are the floor: the agent's own cost of running a hook, %.1f ms a tool call, which no hook can go under.)\n",
		p.replies, secs(base), ms(bench.Median(added[idle]))/float64(p.calls))
	verdict := "judged at that size only"
	if n == goalSize {
		// Worded as make bench words its goals: a goal is shown, and
		// never sets the exit status.
		verdict = "met (goal)"
		if share(hooked) >= goalShare {
			verdict = "not yet (goal)"
		}
		verdict += fmt.Sprintf(" (%.1f%%", 100*share(hooked))
		if len(times[watched]) > 0 {
			verdict += fmt.Sprintf("; with watchman %.1f%%", 100*share(watched))
		}
		verdict += ")"
		if floor >= goalShare {
			verdict += fmt.Sprintf(", below the floor here: hooks running true add %.1f%%", 100*floor)
		}
	}
	fmt.Fprintf(w, "Goal, under %.0f%% at %s files with the fake model: %s.\n", 100*goalShare, bench.Thousands(goalSize), verdict)
	for _, a := range []arm{hooked, watched} {
		if len(traces[a]) > 0 {
			fmt.Fprintf(w, "\n### Where the hooks' time goes, %s (one more session, GIT_CHECKPOINT_TRACE on; medians per hook)\n\n%s\n", a, breakdown(traces[a]))
		}
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func secs(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

func secondsText(d time.Duration) string { return fmt.Sprintf("%g s", d.Seconds()) }

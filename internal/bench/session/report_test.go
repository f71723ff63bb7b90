package session

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// report prints one size's rounds, what the hooks added per tool call,
// per turn and as a share of the session, that share with a real model's
// latency, the goal's verdict, and the traced session's breakdown.
func report(w io.Writer, o *options, n int, version string, p *plan, times map[arm][]time.Duration, traces []hookTrace) {
	var tools []string
	for _, k := range []string{"Write", "Edit", "Bash", "Read"} {
		tools = append(tools, fmt.Sprintf("%d %s", p.tools[k], k))
	}
	fmt.Fprintf(w, "## Claude Code %s, %s files: %d turns, %d tool calls (%s); %d model replies, %d of them with parallel calls\n\n",
		version, thousands(n), o.turns, p.calls, strings.Join(tools, ", "), p.replies, p.parallel)
	with, idles, without := times[hooked], times[idle], times[bare]
	fmt.Fprintf(w, "| round | with the hooks | hooks running true | without hooks | added by the hooks | of which the agent's running a hook |\n|---|---:|---:|---:|---:|---:|\n")
	var added, agent []time.Duration
	for i := range with {
		added = append(added, with[i]-without[i])
		agent = append(agent, idles[i]-without[i])
		fmt.Fprintf(w, "| %d | %s | %s | %s | %s | %s |\n", i+1, secs(with[i]), secs(idles[i]), secs(without[i]), secs(added[i]), secs(agent[i]))
	}
	base, add := median(without), median(added)
	fmt.Fprintf(w, "| median | %s | %s | %s | %s | %s |\n\n", secs(median(with)), secs(median(idles)), secs(base), secs(add), secs(median(agent)))
	share := float64(add) / float64(base)
	fmt.Fprintf(w, "The hooks added %.1f ms per tool call, %.0f ms per turn, %.1f%% of the session (the fake model answers at once: the worst case; added is the median of each round's difference). Of that, %.1f ms per tool call is the agent's own cost of running a hook that does nothing.\n",
		ms(add)/float64(p.calls), ms(add)/float64(o.turns), 100*share, ms(median(agent))/float64(p.calls))
	for _, l := range o.latencies {
		real := base + time.Duration(p.replies)*l
		fmt.Fprintf(w, "With a real model at %s a reply (an assumption: %d replies, the session %s without the hooks), the same time is %.2f%% of the session.\n",
			secondsText(l), p.replies, secs(real), 100*float64(add)/float64(real))
	}
	switch {
	case n != goalSize:
		fmt.Fprintf(w, "Goal, under %.0f%% at %s files with the fake model: judged at that size only.\n", 100*goalShare, thousands(goalSize))
	case share < goalShare:
		fmt.Fprintf(w, "Goal, under %.0f%% at %s files with the fake model: PASS (%.1f%%).\n", 100*goalShare, thousands(goalSize), 100*share)
	default:
		fmt.Fprintf(w, "Goal, under %.0f%% at %s files with the fake model: FAIL (%.1f%%).\n", 100*goalShare, thousands(goalSize), 100*share)
	}
	fmt.Fprintf(w, "\n### Where the hooks' time goes (one more session, GIT_CHECKPOINT_TRACE on; medians per hook)\n\n%s\n", breakdown(traces))
}

func median(d []time.Duration) time.Duration {
	d = slices.Clone(d)
	slices.Sort(d)
	if len(d)%2 == 1 {
		return d[len(d)/2]
	}
	return (d[len(d)/2-1] + d[len(d)/2]) / 2
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func secs(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

func secondsText(d time.Duration) string { return fmt.Sprintf("%g s", d.Seconds()) }

func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

package bench

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// parallelCalls is how many per-tool hooks the parallel case starts at
// once: one agent's parallel tool calls, whose PostToolUse hooks the
// agent runs at the same time.
const parallelCalls = 10

// parallelCase creates parallelCalls files in as many directories, then
// starts one session's PostToolUse Write hook for each at the same moment.
// The design's target is the whole burst within one git status: the agent
// waits for all of them before its next step.
func (b *bed) parallelCase() benchCase {
	return benchCase{key: "parallel", label: fmt.Sprintf("%d parallel per-tool captures (%s), until all exit", parallelCalls, b.tool),
		setup:    func(r int) error { return b.sync(r, b.create(r, parallelCalls)...) },
		run:      func(int) (sample, error) { return b.hooksAtOnce(1) },
		teardown: b.checkParallel,
	}
}

// checkParallel proves the calls were not merged or lost: every call made
// its own partial checkpoint after the one the setup took, naming its file
// and holding it, each chained to the one before it; then a full capture
// must find nothing new.
func (b *bed) checkParallel(r int) error {
	out, err := runQuiet(b.fx.dir, b.env, nil, "git", "checkpoint", "list", "--json")
	if err != nil {
		return err
	}
	var list struct{ Checkpoints []listed }
	if err := json.Unmarshal(out, &list); err != nil {
		return err
	}
	recs := list.Checkpoints
	slices.SortFunc(recs, func(a, b listed) int { return a.N - b.N })
	at := slices.IndexFunc(recs, func(c listed) bool { return c.ID == b.syncID })
	if at < 0 {
		return fmt.Errorf("the checkpoint taken before the parallel calls (%s) is not listed", b.syncID)
	}
	newer := recs[at+1:]
	if len(newer) != len(b.created) {
		return fmt.Errorf("%d parallel calls made %d checkpoints", len(b.created), len(newer))
	}
	prev := recs[at]
	var named []string
	for _, c := range newer {
		if !c.Partial || len(c.Paths) != 1 {
			return fmt.Errorf("checkpoint %s is not a partial capture of one file (paths %q)", c.ID, c.Paths)
		}
		if want := prev.ID + " " + prev.Commit; c.Previous != want {
			return fmt.Errorf("checkpoint %s follows %q, not %q", c.ID, c.Previous, want)
		}
		held, err := runQuiet(b.fx.dir, b.env, nil, "git", "ls-tree", "--name-only", c.Commit, "--", filepath.ToSlash(c.Paths[0]))
		if err != nil {
			return err
		}
		if strings.TrimSpace(string(held)) == "" {
			return fmt.Errorf("checkpoint %s names %s but does not hold it", c.ID, c.Paths[0])
		}
		named = append(named, c.Paths[0])
		prev = c
	}
	slices.Sort(named)
	want := slices.Clone(b.created)
	slices.Sort(want)
	if !slices.Equal(named, want) {
		return fmt.Errorf("the parallel checkpoints name %q, want %q", named, want)
	}
	return b.checkCaptured(r)
}

// listed is what checkParallel reads of a checkpoint in list --json.
type listed struct {
	ID, Commit, Previous string
	N                    int
	Paths                []string
	Partial              bool
}

// Package bisect finds the first checkpoint at which a command fails:
// turn by turn over the turns' end checkpoints, then checkpoint by
// checkpoint within the first bad turn. The command runs in a temporary
// linked worktree holding each candidate's files, never in this tree:
// this tree, its index, HEAD, branches and refs (checkpoint refs too) are
// left as they are, and the worktree is removed afterwards.
package bisect

import (
	"context"
	"io"
	"os"
	"path/filepath"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
	"github.com/git-checkpoint/git-checkpoint/internal/turns"
)

// Bisector holds what a bisect needs, passed in by the command line.
type Bisector struct {
	Git   *git.Runner // git in this tree
	Repo  *git.Repo
	Store *store.Store
	// Env is the environment of CMD and of the setup command.
	Env []string
	// Output receives CMD's stdout and stderr and the bisect's own
	// progress lines, so that stdout holds only the result.
	Output io.Writer
	// Progress, when set, is told of each step before it runs.
	Progress func(Progress)
	// Warn tells the person of something the bisect did on the side
	// (removing a killed bisect's leftover).
	Warn func(string)
	// Signals are the signals to pass on to CMD: the first stops the
	// bisect (Interrupted), once CMD has exited and the worktree is gone.
	Signals <-chan os.Signal
	// Fail is the test-only failure injection: step "bisect-step", before
	// each run of CMD.
	Fail fault.Failpoints
}

// Request is one bisect.
type Request struct {
	Good, Bad string   // checkpoint ids; "" for the defaults
	Setup     string   // a shell command run once in the new worktree, or ""
	Command   []string // CMD and its arguments
}

// Progress is the step about to run.
type Progress struct {
	Checkpoint, Turn string
	End              string // "good" or "bad" while the ends are checked
	Left             int    // steps left in this phase after this one
	Setup            string // the setup command, when that is what runs
}

// Result is the JSON document of `git checkpoint bisect`.
type Result struct {
	FirstBad FirstBad `json:"first_bad"`
	Good     string   `json:"good"`
	Bad      string   `json:"bad"`
	LastGood string   `json:"last_good"`
	Steps    []Step   `json:"steps"`
}

// FirstBad is the first checkpoint at which CMD fails, and its turn.
type FirstBad struct {
	Turn       string `json:"turn"`
	Checkpoint string `json:"checkpoint"`
	Prompt     string `json:"prompt"`
	Reason     string `json:"reason"`
	Tool       string `json:"tool"`
	// Paths are what changed from the last good checkpoint to this one:
	// the change that broke CMD.
	Paths []string `json:"paths"`
}

// Step is one run of CMD.
type Step struct {
	Checkpoint string `json:"checkpoint"`
	Turn       string `json:"turn,omitempty"`
	Exit       int    `json:"exit"`
}

// Run bisects. It reads the journal without the store lock, which it
// never takes: CMD may run for minutes, and the agent's hooks must not
// wait for it.
func (b *Bisector) Run(ctx context.Context, req Request) (*Result, error) {
	j, err := b.Store.Journal()
	if err != nil {
		return nil, err
	}
	refs, err := b.Store.Refs(ctx)
	if err != nil {
		return nil, err
	}
	good, bad, err := ends(j, refs, req.Good, req.Bad)
	if err != nil {
		return nil, err
	}
	b.cleanLeftovers(ctx)
	sp, err := newSpace(b.Repo.StateDir, filepath.Base(b.Repo.Top))
	if err != nil {
		return nil, err
	}
	s := &search{b: b, req: req, space: sp, results: map[string]int{}, res: &Result{Good: good.ID, Bad: bad.ID, Steps: []Step{}}}
	err = s.bisect(ctx, j, refs, good, bad)
	if cerr := s.cleanup(); err == nil {
		err = cerr
	}
	if err != nil {
		if ierr := b.interrupted(); ierr != nil {
			return nil, ierr
		}
		return nil, err
	}
	return s.res, nil
}

// cleanLeftovers removes what killed bisects of this tree left, saying
// so; one that cannot be removed is left for doctor to report.
func (b *Bisector) cleanLeftovers(ctx context.Context) {
	ls, err := Leftovers(b.Repo.StateDir)
	if err != nil {
		return
	}
	for _, l := range ls {
		if Clean(ctx, b.Git, l) == nil && b.Warn != nil && l.Tree != "" {
			b.Warn("removed the temporary worktree " + l.Tree + ", which a killed bisect left")
		}
	}
}

// ends resolves the good and bad ends. By default good is the start of
// the first turn of the latest session and bad the newest checkpoint.
func ends(j *store.Journal, refs store.Refs, goodID, badID string) (good, bad *store.Record, err error) {
	hint := "name the ends: git checkpoint bisect --good ID --bad ID -- CMD"
	if goodID == "" {
		ts := turns.History(j)
		if len(ts) == 0 {
			return nil, nil, fault.New(fault.InvalidUsage, "no turns to bisect, and no --good").WithHint(hint)
		}
		session := ts[len(ts)-1].Session
		for _, t := range ts {
			if t.Session == session {
				if t.Start == nil {
					return nil, nil, fault.New(fault.NotFoundCheckpoint, "the start of %s, the first turn of the latest session, is no longer kept", t.ID).WithHint(hint)
				}
				goodID = t.Start.ID
				break
			}
		}
	}
	if badID == "" {
		badID = "@"
	}
	if good, err = turns.Resolve(j, refs, goodID); err != nil {
		return nil, nil, err
	}
	if bad, err = turns.Resolve(j, refs, badID); err != nil {
		return nil, nil, err
	}
	if good.N >= bad.N {
		return nil, nil, fault.New(fault.InvalidUsage, "the good end %s is not older than the bad end %s", good.ID, bad.ID).WithHint(hint)
	}
	return good, bad, nil
}

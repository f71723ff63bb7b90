// Package doctor holds the health checks of `git checkpoint doctor`: the
// git version, the journal against the refs, locks killed commands left,
// interrupted rewinds and their leftovers, remotes that would publish
// checkpoints, and hooks and MCP registrations that cannot work. Each
// check says what it found and how to fix it; it changes nothing (Repair
// does, and only what needs no decision). The command line prints the
// checks.
package doctor

import (
	"context"
	"fmt"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/agents"
	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/restore"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// Check is one line of the report.
type Check struct {
	Name    string `json:"name"`
	OK      bool   `json:"ok"`
	Message string `json:"message"`
	Fix     string `json:"fix,omitempty"`
}

// Doctor checks one working tree's store and its surroundings.
type Doctor struct {
	Git   *git.Runner
	Repo  *git.Repo
	Store *store.Store
	// Cwd is where the command started: relative PATH entries are
	// relative to it, as a shell's are.
	Cwd    string
	Getenv func(string) string
	// HookFailures describes the hook calls that took no checkpoint, or
	// is "" while hooks work.
	HookFailures string
	// KeepFor is checkpoint.keepFor as configured ("14d"): how long a
	// removed worktree's checkpoints stay.
	KeepFor string

	// hooked are the agents' files holding hooks (agents.Hooks), read
	// once for every check and report that names them (hooks).
	hooked     []agents.Hooked
	hookedRead bool
}

// oneInstant takes the ages of lock files at one instant for the whole
// run: a lock the repair left young is young in the report after it too
// (store.Store.LocksAt), instead of turning stale in between and being
// reported as a problem --fix did not fix.
func (d *Doctor) oneInstant() {
	if d.Store.LocksAt.IsZero() {
		d.Store.LocksAt = time.Now()
	}
}

// Checks runs every check, in the report's order.
func (d *Doctor) Checks(ctx context.Context) ([]Check, error) {
	d.oneInstant()
	checks := []Check{}
	for _, f := range []func(context.Context) ([]Check, error){
		d.checkGit, d.checkStore, d.checkJournal, d.checkLocks, d.checkRewind, d.checkBisect, d.checkRemovedWorktrees, d.checkRemotes, d.checkHooks, d.checkHooksTwice, d.checkHookFailures, d.checkMCP,
	} {
		cs, err := f(ctx)
		if err != nil {
			return nil, err
		}
		checks = append(checks, cs...)
	}
	return checks, nil
}

// Repair applies the repairs that need no decision and says what it did.
// The caller holds the lock and read j under it.
func (d *Doctor) Repair(ctx context.Context, j *store.Journal) ([]string, error) {
	d.oneInstant()
	refs, err := d.Store.Refs(ctx)
	if err != nil {
		return nil, err
	}
	did, err := d.Store.Repair(ctx, j, refs)
	if err != nil {
		return did, err
	}
	removed, err := restore.CleanStaging(d.Store.Path("staging"))
	if err != nil {
		return did, fault.Wrap(err, fault.FailedIO, "cannot clean the staging directory")
	}
	if len(removed) > 0 {
		did = append(did, fmt.Sprintf("removed %d staging %s a killed rewind or a removal cut short left", len(removed), fault.Plural(len(removed), "entry", "entries")))
	}
	unlocked, err := d.repairLocks()
	if did = append(did, unlocked...); err != nil {
		return did, err
	}
	// After the locks: a stale packed-refs.lock would fail the deletes.
	finished, err := d.finishPrune(ctx, j)
	if did = append(did, finished...); err != nil {
		return did, err
	}
	bisected, err := d.repairBisect(ctx)
	return append(did, bisected...), err
}

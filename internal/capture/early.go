package capture

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sync"

	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/jsontext"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// Early is a capture's scan begun before the command knows its repository:
// discovery and configuration take two git processes, and a clean capture
// of a small tree spent much of its time before its scan, waiting for
// them, the lock and the journal (docs/speed.md, "A scan begun early").
//
// It is begun only where the guess of the repository cannot be wrong in
// a way that matters: the first directory up from the command's with a
// `.git` directory that holds a HEAD, no variable that moves git
// elsewhere, and a private index there already. It runs under that
// repository's store lock, taken without waiting, so it is the scan a
// capture there would run, with the same git, directory, environment and
// private index: whichever repository discovery then finds, what the
// scan did (git refreshing stat data in that private index) is what a
// capture there does. Its result is used only when discovery found that
// same repository and its configuration scans the same way (no file
// system monitor); otherwise it is stopped and the lock let go
// (Release) before the command goes on.
//
// Where the last scan went through a file system monitor, what is begun
// early is instead the question a capture asks the monitor before it
// scans (Capturer.unchanged, git.AskUnchanged): from that scan's token,
// of the hook it asked. Most turn-boundary captures find nothing
// changed, and that question was most of their time, after discovery and
// the configuration (docs/speed.md, "With a file system monitor"). The
// answer is used only if the configuration names the same hook, the
// token is still the state's, and the monitor's other conditions hold;
// a hook changed since is asked again.
type Early struct {
	top, stateDir string
	unlock        func()
	cancel        context.CancelFunc
	done          chan struct{}
	entries       []entry
	unopened      []store.Skip
	err           error
	// released says the lock was let go: what the scan found may have
	// changed since, and no capture takes it.
	released bool
	// query, when set, is the monitor's answer begun in place of the
	// scan.
	query *earlyQuery
	// stat, when set, is the stat check's answer, got before the scan
	// (which ran only if the answer was no); scanned says the scan ran.
	stat    *earlyStat
	scanned bool
	ignored []string
	listed  bool
}

// earlyStat is the stat check's answer for the record of a private index
// (statcheck.Record.Index): whether the tree is the one that record names.
type earlyStat struct {
	index string
	same  bool
}

// earlyQuery is the monitor's answer to an early question: whether
// anything changed since token, asked of hook.
type earlyQuery struct {
	hook, token string
	unchanged   bool
}

// StartEarly begins the scan of the repository the command started in
// dir seems to be in, or returns nil. r is the command's runner: the
// lock taken is let go through it, after its writes aside, as the lock
// Store.Lock takes.
func StartEarly(ctx context.Context, dir string, r *git.Runner) *Early {
	if git.MovedByEnv(r.Env) {
		return nil
	}
	top, gitDir, ok := git.GuessRepository(dir)
	if !ok {
		return nil
	}
	repo := &git.Repo{Top: top, GitDir: gitDir, CommonDir: gitDir, StateDir: filepath.Join(gitDir, "checkpoints"),
		Index: filepath.Join(gitDir, "index"), Worktree: "main"}
	st := store.New(repo, r, nil)
	c := &Capturer{Repo: repo, Store: st, Git: &git.Runner{Dir: top, Env: r.Env, Trace: r.Trace, CaseSensitive: git.CaseSensitive(top)}}
	if _, err := os.Stat(c.PrivateIndex()); err != nil {
		return nil // a first capture seeds
	}
	raw, err := c.readState()
	if err != nil {
		return nil // a first capture seeds
	}
	// The state says whether the scan is the one a capture runs first
	// (fitsEarly). Decoding it would delay git's start: a state with
	// neither a monitor's token nor a stat check's record (which the early
	// question needs whole) is only glanced at for the two fingerprints
	// that say whether a re-seed is due, and decoded by the capture. A key
	// is never inside a JSON string, where every quote is escaped.
	state, glanced := glanceState(raw)
	if !glanced || bytes.Contains(raw, []byte(`"monitor":`)) || bytes.Contains(raw, []byte(`"stat":`)) {
		state = parseState(raw, &indexState{})
	}
	if !c.fitsEarly(state) {
		return nil
	}
	unlock, ok := st.TryLock()
	if !ok {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	e := &Early{top: top, stateDir: repo.StateDir, unlock: unlock, cancel: cancel, done: make(chan struct{})}
	if m := state.Monitor; m != nil {
		e.query = &earlyQuery{hook: m.Hook, token: m.Token}
	}
	started := make(chan struct{})
	var once sync.Once
	c.started = func() { once.Do(func() { close(started) }) }
	go func() {
		defer close(e.done)
		if q := e.query; q != nil {
			q.unchanged = git.AskUnchanged(ctx, q.hook, q.token, top, r.Env, r.Trace)
			return
		}
		if s := state.Stat; s != nil {
			// The check first: most turn-boundary captures find nothing
			// changed, and then no git runs.
			e.stat = &earlyStat{index: s.Index, same: c.treeMatches(state)}
			if e.stat.same {
				return
			}
		}
		e.entries, e.unopened, e.err = c.status(ctx)
		e.ignored, e.listed, e.scanned = c.ignored, c.listed, true
	}()
	if e.query == nil {
		// The command goes on once the scan's git has started, not
		// while it starts: see git.Cmd.Started.
		select {
		case <-started:
		case <-e.done:
		}
	}
	return e
}

// glanceState reads the fingerprints of the real index and the exclude
// file from a state's bytes without decoding them: saveState writes them
// first, in that order (json.Marshal keeps the struct's), and each is
// sizes and times in digits. ok is false for a state of another shape.
func glanceState(raw []byte) (st *indexState, ok bool) {
	real, rest, ok := jsontext.StringAfter(raw, `{"real":"`)
	if !ok {
		return nil, false
	}
	exclude, _, ok := jsontext.StringAfter(rest, `,"exclude":"`)
	if !ok {
		return nil, false
	}
	return &indexState{Real: real, Exclude: exclude}, true
}

// fitsEarly reports whether what the state says lets a scan or a question
// begin early. A re-seed may replace the private index, and looks at the
// real index's entries first. A monitored scan is asked nothing early
// when the state does not say which hook (an older state) or a submodule
// makes it scan anyway (Capturer.unchanged).
func (c *Capturer) fitsEarly(state *indexState) bool {
	m := state.Monitor
	return !c.needsSeed(state) && (m == nil || m.Hook != "" && len(state.Gitlinks) == 0)
}

// Fits reports whether what was begun early is what a capture of repo
// with the monitor fsm (nil for none) does first: the same tree and
// store, and a scan without a monitor or a question with one.
func (e *Early) Fits(repo *git.Repo, fsm *git.Fsmonitor) bool {
	return e != nil && !repo.Private && (fsm != nil) == (e.query != nil) &&
		filepath.Clean(repo.Top) == e.top && filepath.Clean(repo.StateDir) == e.stateDir
}

// Release lets go of the store lock the early scan holds, once the scan
// has ended (stopped, if nothing took its result): the command's unlock,
// or its abandon. A scan still running without the lock could write its
// index.lock beside the next capture's.
func (e *Early) Release() {
	if e == nil {
		return
	}
	e.stop()
	e.released = true
	e.unlock()
}

// stop ends the scan, which git ends cleanly (SIGTERM: it removes its
// index.lock), and waits for it.
func (e *Early) stop() {
	e.cancel()
	<-e.done
}

// result waits for the scan; ok is false when it failed, was stopped or
// its lock let go, or was a question, and the capture then scans again.
func (e *Early) result() (entries []entry, unopened []store.Skip, ok bool) {
	<-e.done
	e.cancel()
	return e.entries, e.unopened, e.err == nil && !e.released && e.scanned
}

// answer waits for the monitor's answer; ok is false when it was a scan,
// or its lock was let go.
func (e *Early) answer() (q earlyQuery, ok bool) {
	<-e.done
	e.cancel()
	if e.query == nil || e.released {
		return earlyQuery{}, false
	}
	return *e.query, true
}

// scan is status, or the early scan's result when one was begun.
func (c *Capturer) scan(ctx context.Context) ([]entry, []store.Skip, error) {
	if e := c.Early; e != nil {
		c.Early = nil
		if entries, unopened, ok := e.result(); ok {
			c.ignored, c.listed = e.ignored, e.listed
			return entries, unopened, nil
		}
	}
	return c.status(ctx)
}

// seedAfterEarly is seed, after an early scan of the private index it may
// replace has ended: a scan of the private index it replaced is dropped.
// (StartEarly begins none where a re-seed is due; the real index can
// change in between.)
func (c *Capturer) seedAfterEarly(ctx context.Context, st *indexState) (bool, error) {
	e := c.Early
	if e != nil {
		<-e.done
	}
	seeded, err := c.seed(ctx, st, false)
	if seeded {
		c.Early = nil
	}
	return seeded, err
}

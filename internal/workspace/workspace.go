// Package workspace opens one working tree for a command: it discovers the
// repository, reads the configuration, wires the one git runner, the
// store and the capturer, and offers what every command does with them
// (the store lock, the journal read and repaired, ids and paths resolved).
// Both front ends stand on it: the command line (package cli) and the MCP
// server (package mcp), which never import each other. It prints nothing
// but the warnings of a repair, and asks nothing.
package workspace

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/capture"
	"github.com/git-checkpoint/git-checkpoint/internal/config"
	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/program"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// Workspace is one working tree opened for one command (or, for the MCP
// server, one tool call: HEAD, the configuration and the store may change
// between two).
type Workspace struct {
	Cwd     string // where the command was started (after -C)
	Git     *git.Runner
	Repo    *git.Repo
	Config  config.Config
	Store   *store.Store
	Capture *capture.Capturer
	// Fail is the test-only failure injection (GIT_CHECKPOINT_FAILPOINT,
	// see fault.Failpoints); the capturer and a rewind share it.
	Fail fault.Failpoints

	warnings io.Writer // where a repair is told, with prog first
	prog     string
	held     bool // this process holds the store lock
	// early is the scan begun before discovery, which holds the store
	// lock for the first lock to take (capture.Early).
	early *capture.Early
}

// Options say where and how to open a working tree.
type Options struct {
	Dir     string   // where the command runs ("" for the current directory)
	Environ []string // the process's environment
	Now     func() time.Time
	// Warnings receives what a repair did, as "PROG: warning: ...", and
	// with GIT_CHECKPOINT_TRACE set, the trace.
	Warnings io.Writer
	Prog     string
	// Scan begins the scan beside discovery, for a command that scans the
	// tree first thing under the lock (capture.Early); it calls Release
	// when it is done, for the case it never locked.
	Scan bool
}

// Open discovers the repository, reads the configuration and wires the
// store and capturer: two git processes, run at the same time.
func Open(ctx context.Context, o Options) (w *Workspace, err error) {
	dir := o.Dir
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	getenv := func(name string) string { return git.Getenv(o.Environ, name) }
	r := &git.Runner{Dir: abs, Env: git.CleanEnv(o.Environ), Trees: git.NewTrees(), Aside: git.NewAside()}
	if getenv("GIT_CHECKPOINT_TRACE") != "" {
		r.Trace = &git.LockedWriter{W: o.Warnings}
	}
	var early *capture.Early
	if o.Scan {
		early = capture.StartEarly(ctx, abs, r)
	}
	defer func() {
		if err != nil {
			early.Release()
		}
	}()
	var cache *config.Cache
	if !git.MovedByEnv(r.Env) {
		if top, gitDir, ok := git.GuessRepository(abs); ok {
			cache = config.NewCache(top, gitDir, r.Env, o.Now())
		}
	}
	repo, cfg, err := discover(ctx, r, cache, abs)
	if err != nil {
		return nil, err
	}
	// The model's rewind switch counts only from outside the repository.
	cfg.Within(repo.Top, repo.GitDir, repo.CommonDir)
	r.Dir = repo.Top
	r.Env = git.Anchor(r.Env, repo)
	r.CaseSensitive = git.CaseSensitive(repo.Top)
	r.Objects = git.ObjectDir(r.Env, repo, cfg.Shared)
	r.Lenient = capture.Lenient(cfg)
	st := store.New(repo, r, o.Now)
	r.Written = git.NewWritten(repo.CommonDir, r.Objects, st.Path("unsynced"))
	cp := &capture.Capturer{Repo: repo, Store: st, Git: r, Cfg: cfg}
	if cfg.Fsmonitor {
		r.Fsmonitor = git.NewFsmonitor(self(abs, getenv("PATH")), cfg.FsmonitorHook, cp.PrivateIndex())
	}
	if !early.Fits(repo, r.Fsmonitor) {
		early.Release()
		early = nil
	}
	cp.Early = early
	fail := fault.ParseFailpoints(getenv("GIT_CHECKPOINT_FAILPOINT"))
	cp.Fail, st.Fail = fail, fail
	return &Workspace{
		Cwd: abs, Git: r, Repo: repo, Config: cfg, Store: st, Capture: cp, Fail: fail,
		warnings: o.Warnings, prog: o.Prog, early: early,
	}, nil
}

// discover finds the repository from dir and reads its configuration.
// When the store keeps both answers and they still hold (config.Cache),
// no git runs. Otherwise the configuration is read while the repository
// is discovered: run from the same directory with the same environment,
// git finds the same repository for both, and every hook call waits for
// them. The configuration is read from the store's cache when that still
// holds, in the repository a look at the file system guesses, which
// discovery then confirms; a nil cache reads git. Outside a repository,
// a private store in dir or above it is used, never made (git checkpoint
// init makes it); r's environment then points git at it.
func discover(ctx context.Context, r *git.Runner, cache *config.Cache, dir string) (*git.Repo, config.Config, error) {
	load := func(cache *config.Cache) (config.Config, error) {
		return cache.Load(ctx, &git.Runner{Dir: r.Dir, Env: r.Env, Trace: r.Trace})
	}
	if repo, ok := cache.Repo(dir); ok {
		cfg, err := load(cache)
		ignorePrivate(repo)
		return repo, cfg, err
	}
	type loaded struct {
		cfg config.Config
		err error
	}
	configured := make(chan loaded, 1)
	go func() {
		cfg, err := load(cache)
		configured <- loaded{cfg, err}
	}()
	repo, err := git.Discover(ctx, r)
	conf := <-configured
	if err == nil && cache.Settle(repo, dir) {
		conf.cfg, conf.err = load(nil) // the guessed repository's, not this one's
	}
	if err != nil {
		top := git.FindPrivate(dir)
		if top == "" || git.IsRefusal(err) {
			return nil, config.Config{}, err
		}
		r.Env = append(r.Env, git.PrivateEnv(top)...)
		if repo, err = git.Discover(ctx, r); err != nil {
			return nil, config.Config{}, err
		}
		repo.Private = true
		// The early read found no repository: read it again in the
		// private store's.
		conf.cfg, conf.err = load(nil)
		ignorePrivate(repo)
	}
	return repo, conf.cfg, conf.err
}

// ignorePrivate gives a private store made before stores ignored
// themselves (git.IgnorePrivate) its ignore file, when it is used. Best
// effort: a store that cannot be written says so at its first checkpoint.
func ignorePrivate(repo *git.Repo) {
	if repo.Private {
		_ = git.IgnorePrivate(repo.Top)
	}
}

// self is the path of git-checkpoint, which git runs as the scan's
// fsmonitor hook: the one on PATH (the program git found), else this
// executable. "" when neither is known.
func self(dir, pathEnv string) string {
	if p, err := program.LookPath("git-checkpoint", dir, pathEnv); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return abs
		}
	}
	p, _ := os.Executable()
	return p
}

// Warn tells the person about something the command repaired or noticed,
// so that nothing is ever fixed silently.
func (w *Workspace) Warn(format string, args ...any) {
	if w.warnings != nil {
		fmt.Fprintf(w.warnings, "%s: warning: %s\n", w.prog, fmt.Sprintf(format, args...))
	}
}

package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/capture"
	"github.com/git-checkpoint/git-checkpoint/internal/config"
	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// session is everything a command needs about the working tree it runs in.
type session struct {
	sys   *IO
	g     *Globals
	cwd   string // where the command was started (after -C)
	git   *git.Runner
	repo  *git.Repo
	cfg   config.Config
	store *store.Store
	cap   *capture.Capturer
	out   *printer
	held  bool // this process holds the store lock
	// early is the scan begun before discovery, which holds the store
	// lock for the first lock to take (capture.Early).
	early *capture.Early
	// fail is the test-only failure injection (GIT_CHECKPOINT_FAILPOINT,
	// see fault.Failpoints); the capturer and a rewind share it.
	fail fault.Failpoints
}

// open discovers the repository, reads the configuration and wires the
// store and capturer: two git processes, run at the same time.
func open(ctx context.Context, sys *IO, g *Globals) (*session, error) {
	return openFor(ctx, sys, g, false)
}

// openScanning is open for a command that scans the tree first thing
// under the lock: the scan begins beside discovery (capture.Early). The
// command calls release when it is done, for the case it never locked.
func openScanning(ctx context.Context, sys *IO, g *Globals) (*session, error) {
	return openFor(ctx, sys, g, true)
}

// earlyLock takes over the store lock the early scan holds; ok is false
// when there is none.
func (s *session) earlyLock() (unlock func(), ok bool) {
	e := s.early
	if e == nil {
		return nil, false
	}
	s.early = nil
	return e.Release, true
}

// release lets go of an early scan no lock took.
func (s *session) release() {
	s.early.Release()
	s.early = nil
}

// openFor is open, beginning the scan early when scan is set.
func openFor(ctx context.Context, sys *IO, g *Globals, scan bool) (s *session, err error) {
	dir := g.Chdir
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	r := &git.Runner{Dir: abs, Env: git.CleanEnv(sys.Environ()), Trees: git.NewTrees(), Aside: git.NewAside()}
	if sys.Getenv("GIT_CHECKPOINT_TRACE") != "" {
		r.Trace = &git.LockedWriter{W: sys.Stderr}
	}
	var early *capture.Early
	if scan {
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
			cache = config.NewCache(top, gitDir, r.Env, sys.Now())
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
	st := store.New(repo, r, sys.Now)
	cp := &capture.Capturer{Repo: repo, Store: st, Git: r, Cfg: cfg}
	if cfg.Fsmonitor {
		r.Fsmonitor = git.NewFsmonitor(self(sys, abs), cfg.FsmonitorHook, cp.PrivateIndex())
	}
	if !early.Fits(repo, r.Fsmonitor) {
		early.Release()
		early = nil
	}
	cp.Early = early
	fail := fault.ParseFailpoints(sys.Getenv("GIT_CHECKPOINT_FAILPOINT"))
	cp.Fail = fail
	return &session{
		sys: sys, g: g, cwd: abs, git: r, repo: repo, cfg: cfg, store: st,
		cap:   cp,
		out:   newPrinter(sys, g),
		fail:  fail,
		early: early,
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
func self(sys *IO, dir string) string {
	if p, err := lookPath("git-checkpoint", dir, sys.Getenv("PATH")); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return abs
		}
	}
	p, _ := os.Executable()
	return p
}

// lockedJournal takes the store lock and reads the journal under it, as
// every writer does first. The caller unlocks when it is done.
func (s *session) lockedJournal(ctx context.Context) (*store.Journal, func(), error) {
	unlock, err := s.lock(ctx)
	if err != nil {
		return nil, nil, err
	}
	j, err := s.store.Journal()
	if err != nil {
		unlock()
		return nil, nil, err
	}
	return j, unlock, nil
}

// lock takes the store lock for a writer: the one the early scan holds,
// if it does.
func (s *session) lock(ctx context.Context) (func(), error) {
	unlock, ok := s.earlyLock()
	if !ok {
		end := s.git.Phase("lock wait")
		var err error
		unlock, err = s.store.Lock(ctx, s.cfg.LockTimeout)
		end()
		if err != nil {
			return nil, err
		}
	}
	s.held = true
	return func() {
		s.held = false
		unlock()
	}, nil
}

// readJournal reads the journal, then lists the checkpoint refs. A
// checkpoint is written ref first, journal line second, so a reader
// without the lock that races a capture sees at worst a ref without a
// record, which journal repairs under the lock; the other order could show
// a record whose ref seems deleted. Under the lock nothing is written
// meanwhile, and the refs are listed (a git process) while the journal is
// read and its chain checked: every rewind waits for both.
func (s *session) readJournal(ctx context.Context) (*store.Journal, map[int]string, error) {
	if !s.held {
		j, err := s.store.Journal()
		if err != nil {
			return nil, nil, err
		}
		refs, err := s.store.Refs(ctx)
		return j, refs, err
	}
	var refs map[int]string
	var refsErr error
	listed := make(chan struct{})
	go func() {
		defer close(listed)
		refs, refsErr = s.store.Refs(ctx)
	}()
	j, err := s.store.Journal()
	<-listed
	if err == nil {
		err = refsErr
	}
	return j, refs, err
}

// journal reads the journal and repairs it when it must be (a damaged or
// lost journal is rebuilt, checkpoint refs without a record are adopted),
// so every command sees what a crashed run left behind. It takes the lock
// only when there is something to repair, and not again when the caller
// already holds it.
func (s *session) journal(ctx context.Context) (*store.Journal, map[int]string, error) {
	j, refs, err := s.readJournal(ctx)
	if err != nil {
		return nil, nil, err
	}
	if !store.NeedsRepair(j, refs) {
		return j, refs, nil
	}
	if !s.held {
		unlock, err := s.lock(ctx)
		if err != nil {
			return nil, nil, err
		}
		defer unlock()
		if j, err = s.store.Journal(); err != nil {
			return nil, nil, err
		}
	}
	did, err := s.store.Repair(ctx, j, refs)
	if err != nil {
		return nil, nil, err
	}
	for _, d := range did {
		s.warn("%s", d)
	}
	return j, refs, nil
}

// warn tells the person about something the command repaired or noticed,
// on stderr, so that nothing is ever fixed silently.
func (s *session) warn(format string, args ...any) {
	fmt.Fprintf(s.sys.Stderr, "%s: warning: %s\n", s.sys.prog, fmt.Sprintf(format, args...))
}

// rel turns a path the user typed, relative to where they stand, into a
// path from the top of the tree; a path outside the tree is an error. A
// relative path is joined to the prefix git found for the current
// directory, not to the directory's name: reached through a symlink, that
// name is not below the top git reports, which is always the real path.
func (s *session) rel(p string) (string, error) {
	var rel string
	if filepath.IsAbs(p) {
		var err error
		// The last component is the path itself, even when it is a
		// symlink: only the directories on its way are resolved.
		clean := filepath.Clean(p)
		real := filepath.Join(realPath(filepath.Dir(clean)), filepath.Base(clean))
		if rel, err = filepath.Rel(s.repo.Top, real); err != nil {
			rel = ".."
		}
	} else {
		rel = filepath.Join(filepath.FromSlash(s.repo.Prefix), p)
	}
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return "", fault.New(fault.InvalidPath, "%s is outside the working tree %s", fault.Quote(p), s.repo.Top)
	}
	if rel == "." {
		return "", nil
	}
	return filepath.ToSlash(rel), nil
}

// realPath resolves the symlinks in p, or in its longest leading part that
// exists (p may name a path the rewind is to create).
func realPath(p string) string {
	var rest []string
	for dir := p; ; dir = filepath.Dir(dir) {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(append([]string{real}, rest...)...)
		}
		if filepath.Dir(dir) == dir {
			return p
		}
		rest = append([]string{filepath.Base(dir)}, rest...)
	}
}

// rels is rel for each of paths.
func (s *session) rels(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		rel, err := s.rel(p)
		if err != nil {
			return nil, err
		}
		out = append(out, rel)
	}
	return out, nil
}

// pathspec is rel as a literal git pathspec from the top of the tree.
func (s *session) pathspec(p string) (string, error) {
	rel, err := s.rel(p)
	if err != nil {
		return "", err
	}
	return ":(top,literal)" + rel, nil
}

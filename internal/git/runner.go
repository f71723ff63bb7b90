// Package git is the one door through which git-checkpoint talks to git.
// Every invocation goes through Runner.Run, which builds the environment
// explicitly, pins the configuration that would otherwise make a snapshot
// run user hooks, sign commits, start gc or quote paths, captures stderr into
// the returned error, and can trace each call for tests that pin the number
// of git processes per operation.
package git

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
)

// pinned is passed as -c to every git call that does not hand its output to
// the user. Each entry guards an invariant:
var pinned = []string{
	// Never run the user's hooks from a snapshot or a rewind.
	"core.hooksPath=/dev/null",
	// Paths come back byte for byte (we also use -z wherever git has it).
	"core.quotePath=false",
	// The tool never starts gc or maintenance: checkpoints must survive
	// only by their refs, and a hook must not pay for a repack.
	"gc.auto=0",
	"maintenance.auto=false",
	// Checkpoint commits are never signed, whatever the user configured.
	"commit.gpgSign=false",
	// A private index is written whole, never as a split index that would
	// share (and could clobber) the real index's shared part.
	"core.splitIndex=false",
	// Checkpoint refs keep no reflog, so pruning a ref releases its objects.
	"core.logAllRefUpdates=false",
	// Plumbing output is parsed, never paged or colored.
	"color.ui=false",
	// Loose objects are written at zlib's fastest level: compressing is
	// most of what storing a new file costs at the default level,
	// level 1 makes them a few percent larger, and packing (checkpoint.packEvery) compresses them again
	// at pack.compression.
	"core.looseCompression=1",
	// A checkpoint records the disk, not git's opinion of it: the
	// executable bit and symlinks are read from the disk and written
	// back as they were, whatever the repository says. With either off,
	// git keeps the mode the index has (a script comes back without its
	// bit, a symlink as a file holding its target). The real index is
	// never written with them, so `git status` keeps the user's view.
	"core.fileMode=true",
	"core.symlinks=true",
	// What git writes is on disk before its name: a loose object, a pack
	// and its index, a ref, packed-refs, an index (the private one, and
	// the real one a --reset-head writes) are synced before git renames
	// them into place. git's default leaves loose objects, refs and
	// indexes out, and a filesystem may make the rename durable before
	// the data, so a power loss left an empty object file (which the next
	// capture of the same content takes as stored), an empty branch ref
	// or packed-refs: the power-loss test found each (TestPowerLoss,
	// docs/fault-safety.md). fsync, not batch: batch's writeout-only
	// flushes promise nothing on Linux.
	fsyncConfig[0], fsyncConfig[1],
}

// fsyncConfig is the configuration that makes git sync what it writes
// before naming it (see pinned); a push gives it to the receiving git of
// a remote on this machine too (Push).
var fsyncConfig = [2]string{"core.fsync=committed,index", "core.fsyncMethod=fsync"}

// Runner runs git in one repository.
type Runner struct {
	// Dir is the directory git runs in (the top of the working tree).
	Dir string
	// Env is the environment every call starts from; see CleanEnv.
	Env []string
	// Trace, when set, receives one line per git invocation. Several
	// goroutines start git at once (discovery beside configuration, the
	// two halves of a scan), so it must be safe for concurrent use: see
	// LockedWriter.
	Trace io.Writer
	// Fsmonitor, when set, lets the user's core.fsmonitor hook spare the
	// scans their work (checkpoint.fsmonitor; see Fsmonitor). Without it
	// every call runs with core.fsmonitor=false.
	Fsmonitor *Fsmonitor
	// Trees, when set, holds the trees this runner read and wrote, which
	// DiffTree then compares without git.
	Trees *Trees
	// Aside, when set, runs writes in the background (see Aside); every
	// process waits for them but those that set Cmd.Older.
	Aside *Aside
	// Objects, when set, is the repository's object directory, where
	// WritePack writes its packs itself; git index-pack writes them
	// otherwise (see ObjectDir).
	Objects string
	// CaseSensitive says the working tree's file system tells names
	// apart by case (CaseSensitive): every call then runs with
	// core.ignoreCase=false, which a repository copied from macOS keeps
	// true, and under which git takes a new file.txt for a tracked
	// File.txt and never captures it. Left false where it is not known,
	// the user's setting stands.
	CaseSensitive bool
	// Lenient are -c options for every call but those that write files
	// of the tree through smudge filters (Cmd.Smudges): the filters a
	// user marked required, run as not required (capture.Lenient), so
	// that git reading the tree (status, diff, add, the racy-clean check
	// of any index it writes) takes a file whose clean filter fails as
	// its bytes are, rather than dying on it.
	Lenient []string
	// Written, when set, keeps the directories the runner's commands
	// changed, which a checkpoint then syncs (see Written); unset, a sync
	// is a syncfs.
	Written *Written
	// refs, while OpenRefs holds it open, is the update-ref that UpdateRef
	// asks instead of starting one.
	refs *refSession
	// scratch says git writes its objects into an object directory of
	// the caller's, unsynced (ScratchObjects).
	scratch bool
}

// Cmd is one git invocation.
type Cmd struct {
	Args []string
	// Stdin is fed to git's standard input.
	Stdin []byte
	// Index, when set, is used as GIT_INDEX_FILE: the private or a
	// temporary index. When empty git uses the real index.
	Index string
	// Env adds variables after the cleaned base environment.
	Env []string
	// Dir overrides Runner.Dir (used to look into nested repositories).
	Dir string
	// Older says the command reads no object that work aside (Runner.Aside)
	// may be writing, or that it is that work: it starts without waiting.
	Older bool
	// Stdout and Stderr, when set, receive git's output directly instead
	// of it being captured; used for commands whose output is for the user
	// (diff), which also keep the user's config (pager, colors, drivers).
	Stdout, Stderr io.Writer
	// Warnings, when set, receives what git said on stderr when it
	// succeeded (a failure's stderr is in its error).
	Warnings *bytes.Buffer
	// User keeps the user's configuration: no pinned -c options.
	User bool
	// Config adds -c options after the pinned ones.
	Config []string
	// Smudges says git writes files through smudge filters (a
	// checkout): Runner.Lenient does not apply, since a smudge that fails
	// must fail the checkout, not write the blob as if it were the file.
	Smudges bool
	// Yield runs git at a lower scheduling priority (YieldNice), to give
	// way to a process of ours beside it: see startYielding.
	Yield bool
	// Nested runs git in another repository (Dir): the variables that
	// point git at this one are dropped, as git drops them itself before
	// it enters a submodule. Without this, a GIT_DIR or
	// GIT_OBJECT_DIRECTORY set by the caller would make git look at the
	// outer repository instead.
	Nested bool
	// Started, when set, is called once git has started, or failed to:
	// a caller that runs git on a goroutine of its own goes on only then
	// (capture.StartEarly). Go starts a process with vfork, whose child
	// waits for a core to exec on, and with this goroutine's thread
	// stopped and the caller's busy on the other of two cores, git
	// started one to two milliseconds late.
	Started func()
	// Named says the caller records in Runner.Written where the command
	// writes (objects by id, refs by name); otherwise a command that is
	// not one of the readers makes the next sync a syncfs.
	Named bool
}

// localVars are the variables that tie git to one repository, as
// `git rev-parse --local-env-vars` lists them.
var localVars = []string{"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_CONFIG", "GIT_CONFIG_PARAMETERS",
	"GIT_CONFIG_COUNT", "GIT_OBJECT_DIRECTORY", "GIT_DIR", "GIT_WORK_TREE", "GIT_IMPLICIT_WORK_TREE",
	"GIT_GRAFT_FILE", "GIT_INDEX_FILE", "GIT_NO_REPLACE_OBJECTS", "GIT_REPLACE_REF_BASE", "GIT_PREFIX",
	"GIT_INTERNAL_SUPER_PREFIX", "GIT_SHALLOW_FILE", "GIT_COMMON_DIR"}

// without returns env minus the variables named in names.
func without(env []string, names []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(names, name) {
			out = append(out, kv)
		}
	}
	return out
}

// setIn reports whether env sets any of the variables names.
func setIn(env []string, names ...string) bool {
	for _, kv := range env {
		if name, _, _ := strings.Cut(kv, "="); slices.Contains(names, name) {
			return true
		}
	}
	return false
}

// Anchor returns env with GIT_DIR and GIT_WORK_TREE set to what Discover
// found, for every later call: they run at the top of the tree, from
// where git's own search may find another repository or none. The git
// directory is not always the tree's .git: a relative GIT_DIR names
// another directory from the top than from where the command started,
// and a repository whose core.worktree names its tree (dotfiles in a
// bare repository, a .git elsewhere) has none in its tree at all.
func Anchor(env []string, repo *Repo) []string {
	return append(without(env, []string{"GIT_DIR", "GIT_WORK_TREE"}),
		"GIT_DIR="+repo.GitDir, "GIT_WORK_TREE="+repo.Top)
}

// Getenv reads one variable of env as a process given env would: the last
// setting wins, and "" when it has none.
func Getenv(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], name+"="); ok {
			return v
		}
	}
	return ""
}

// CleanEnv returns env without the variables that would redirect or trace
// our git calls behind our back. GIT_INDEX_FILE in particular is set by git
// for hooks (post-commit) and must never leak into a capture.
func CleanEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case name == "GIT_INDEX_FILE", name == "GIT_PREFIX",
			strings.HasPrefix(name, "GIT_TRACE"),
			name == "GIT_EDITOR" || name == "GIT_SEQUENCE_EDITOR",
			name == "GIT_FLUSH":
			continue
		}
		out = append(out, kv)
	}
	return out
}

// Run executes git and returns its standard output. A failure becomes a
// *fault.Error with code failed.git whose message names the command and
// quotes git's own words.
func (r *Runner) Run(ctx context.Context, c Cmd) ([]byte, error) {
	if !c.Older {
		if err := r.Aside.Settle(); err != nil {
			return nil, err
		}
	}
	writes := r.writes(c)
	done := func() {}
	if writes {
		done = r.Written.Begin()
	}
	cmd := r.command(ctx, c)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if c.Stdout != nil {
		cmd.Stdout = c.Stdout
	}
	if c.Stderr != nil {
		cmd.Stderr = c.Stderr
	}
	r.traceStart(c.Args)
	start := time.Now()
	startCmd := cmd.Start
	if c.Yield {
		startCmd = func() error { return startYielding(cmd) }
	}
	err := startCmd()
	if c.Started != nil {
		c.Started()
	}
	if err == nil {
		err = cmd.Wait()
	}
	r.traceEnd(c.Args, start)
	if writes && !c.Named {
		r.Written.Anywhere("git " + c.Args[0] + " writes what it does not name")
	}
	done()
	if err == nil {
		if c.Warnings != nil {
			c.Warnings.Write(stderr.Bytes())
		}
		return stdout.Bytes(), nil
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) && c.Stdout != nil {
		// Output went to the user; pass the status through untouched.
		return nil, &fault.ExitStatus{Code: exit.ExitCode()}
	}
	return stdout.Bytes(), r.failed(ctx, c, stderr.String(), err)
}

// failed is the error of a git process that failed with err, having said
// stderr.
func (r *Runner) failed(ctx context.Context, c Cmd, stderr string, err error) error {
	name := "git"
	if len(c.Args) > 0 {
		name = "git " + c.Args[0]
	}
	if ctx.Err() != nil {
		return fault.Wrap(ctx.Err(), fault.FailedGit, "%s did not finish", name)
	}
	e := &Error{Args: c.Args, Stderr: clip(stderr), Err: err}
	return fault.Wrap(e, fault.FailedGit, "%s failed", name)
}

// command is the process of c, with the pinned configuration, the
// environment and the directory, not yet started.
func (r *Runner) command(ctx context.Context, c Cmd) *exec.Cmd {
	args := make([]string, 0, 2*len(pinned)+len(c.Args)+2)
	if !c.User {
		for _, kv := range pinned {
			args = append(args, "-c", kv)
		}
		if r.CaseSensitive {
			args = append(args, "-c", "core.ignoreCase=false")
		}
		if r.scratch {
			args = append(args, "-c", "core.fsync=none")
		}
		monitor := []string{"core.fsmonitor=false"}
		if r.Fsmonitor.watches(c.Index) {
			monitor = r.Fsmonitor.config()
		}
		if !c.Smudges {
			monitor = append(monitor, r.Lenient...)
		}
		for _, kv := range append(monitor, c.Config...) {
			args = append(args, "-c", kv)
		}
	}
	args = append(args, c.Args...)
	cmd := exec.CommandContext(ctx, "git", args...)
	// When ctx ends (a hook's time limit), git gets SIGTERM rather than
	// SIGKILL: it then removes its lock files, where a killed git would
	// leave the private index's index.lock behind to fail every later
	// capture. One that does not exit soon after is killed.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 2 * time.Second
	cmd.Dir = r.Dir
	if c.Dir != "" {
		cmd.Dir = c.Dir
	}
	cmd.Env = append([]string(nil), r.Env...)
	if c.Nested {
		cmd.Env = without(cmd.Env, localVars)
	}
	if c.Index != "" {
		cmd.Env = append(cmd.Env, "GIT_INDEX_FILE="+c.Index)
	}
	cmd.Env = append(cmd.Env, c.Env...)
	if r.Fsmonitor.watches(c.Index) && !c.User {
		cmd.Env = append(cmd.Env, r.Fsmonitor.env())
	}
	if c.Stdin != nil {
		cmd.Stdin = bytes.NewReader(c.Stdin)
	}
	return cmd
}

// Error is a git process that failed, with what it said on stderr.
type Error struct {
	Args   []string
	Stderr string
	Err    error
}

func (e *Error) Error() string {
	if e.Stderr != "" {
		return e.Stderr
	}
	return e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// clip keeps the start and end of long stderr output, where git puts the
// cause and the summary.
func clip(s string) string {
	s = strings.TrimSpace(s)
	const max = 2000
	if len(s) <= max {
		return s
	}
	return s[:max/2] + "\n...\n" + s[len(s)-max/2:]
}

// ExitCode returns the exit status of the git process that failed with
// err, or -1 when err is not a git process's exit. Some commands answer a
// question with their status: `config --get` exits 1 for no such key,
// `merge-base --is-ancestor` exits 1 for "no".
func ExitCode(err error) int {
	var ge *Error
	var exit *exec.ExitError
	if errors.As(err, &ge) && errors.As(ge.Err, &exit) {
		return exit.ExitCode()
	}
	return -1
}

// NoMatch reports whether err is git's exit status 1, with which
// `config --get-regexp` and `check-ignore` answer "nothing matched". What
// git printed on stderr does not change that: a warning (a symlinked
// .gitignore it will not follow) comes with the same answer.
func NoMatch(err error) bool { return ExitCode(err) == 1 }

// LockedWriter serializes the trace lines of git processes started at the
// same time, for a Runner's Trace.
type LockedWriter struct {
	mu sync.Mutex
	W  io.Writer
}

func (l *LockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.W.Write(p)
}

// Unanchored returns env without the variables that tie git to one
// repository (localVars): git run in another worktree must find that
// worktree's own directory, never the one a caller's GIT_DIR named.
func Unanchored(env []string) []string { return without(env, localVars) }

package git

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
)

// Fsmonitor is how a capture lets a file system monitor spare it the scan
// (checkpoint.fsmonitor with a core.fsmonitor hook). git does not run the
// user's hook itself: it runs Query (Self with the query word), which runs
// the hook and passes its answer on only when it can vouch for it.
//
// git keeps the monitor's token in the index it reads, so the private
// index holds its own token, apart from the real index's. The untracked
// cache is kept in the private index too, so that the walk for untracked
// files skips the directories the monitor says did not change.
type Fsmonitor struct {
	// Self is the command git runs as its fsmonitor hook: this program
	// with the hidden query word, quoted for the shell.
	Self string
	// Hook is the user's core.fsmonitor: a hook command, run as git
	// would run it.
	Hook string
	// Index is the index whose token the monitor keeps: the private
	// index. Calls on any other index (the temporary ones of a partial
	// capture, the real one) run without it: asking the hook costs a
	// process chain, and their indexes keep no token worth having.
	Index string
}

// watches reports whether a call on index runs with the monitor.
func (f *Fsmonitor) watches(index string) bool {
	return f != nil && index != "" && index == f.Index
}

// FsmonitorQueryWord is the hidden first argument that makes the program
// answer an fsmonitor query (FsmonitorQuery).
const FsmonitorQueryWord = "fsmonitor-query"

// fsmonitorHookVar passes the user's hook to the query, through git.
const fsmonitorHookVar = "GIT_CHECKPOINT_FSMONITOR_HOOK"

// fsmonitorTokenVar, when set for one git call, names the file in which
// the query that call runs saves the token it got from the hook: the
// point from which the next capture can ask what changed (Unchanged).
// Only the scan's call sets it: a token from a later call of the same
// capture would hide the changes made between the scan and that call.
const fsmonitorTokenVar = "GIT_CHECKPOINT_FSMONITOR_TOKEN"

// TokenEnv is the variable that makes the query of one git call save its
// token in path.
func TokenEnv(path string) string { return fsmonitorTokenVar + "=" + path }

// NewFsmonitor returns the Fsmonitor that runs hook for the calls on
// index, or nil when hook is no hook command (unset, or a boolean: git's
// built-in daemon, which this git may not have, is not used).
func NewFsmonitor(self, hook, index string) *Fsmonitor {
	hook = strings.TrimSpace(hook)
	if hook == "" || self == "" {
		return nil
	}
	switch strings.ToLower(hook) {
	case "true", "false", "yes", "no", "on", "off", "1", "0":
		return nil
	}
	return &Fsmonitor{Self: fault.ShellQuote(self) + " " + FsmonitorQueryWord, Hook: hook, Index: index}
}

// config is what every git call on the private index gets with a
// monitor: the query as the hook, and the untracked cache kept as the
// index has it, so that a call other than the scan does not drop the
// private index's. A private index read without a monitor would lose its
// token, so every call on it has one.
func (f *Fsmonitor) config() []string {
	return []string{"core.fsmonitor=" + f.Self, "core.untrackedCache=keep"}
}

func (f *Fsmonitor) env() string { return fsmonitorHookVar + "=" + f.Hook }

// ScanConfig is the configuration of the scan with a monitor: the
// untracked cache made and used, for the walk of `status
// --untracked-files=all` (git keeps one only for the mode
// status.showUntrackedFiles names).
func ScanConfig() []string {
	return []string{"core.untrackedCache=true", "status.showUntrackedFiles=all"}
}

// FsmonitorQuery answers git's fsmonitor hook call (args: interface
// version and the token the index holds) by asking watchman when the token
// is its clock (askWatchman), else by running the user's hook (from the
// environment), and writing the answer to stdout, or everything as
// changed ("/") when the answer cannot be trusted. It returns the exit
// status; a failure makes git check every file, which is always right.
//
// The answer is trusted only when both tokens are clocks of the same
// watchman instance and watched root ("c:START:PID:ROOT:TICKS"). A watchman
// restarted since the token (or a root watched again) answers with the
// files that exist, as a fresh instance: a file deleted in between would
// not be named, and git would keep trusting its entry. Any other token is
// a first query or a monitor whose tokens mean nothing here.
func FsmonitorQuery(ctx context.Context, args []string, getenv func(string) string, environ []string, stdout, stderr io.Writer) int {
	hook := getenv(fsmonitorHookVar)
	if len(args) != 2 || args[0] != "2" || hook == "" {
		return 1
	}
	// git runs the query at the top of the working tree, the root the
	// hook would ask watchman about (git's sample hook asks for its
	// working directory); one it cannot name is the hook's to answer.
	dir, _ := os.Getwd()
	out, _, err := ask(ctx, hook, args[1], dir, environ, stderr)
	if err != nil {
		return 1
	}
	token, _, ok := bytes.Cut(out, []byte{0})
	if !ok || len(token) == 0 {
		return 1
	}
	if path := getenv(fsmonitorTokenVar); path != "" {
		// A token not saved only costs the next capture its shortcut.
		_ = os.WriteFile(path, token, 0o644)
	}
	if !sameWatch(args[1], string(token)) {
		out = append(append(token, 0, '/'), 0)
	}
	if _, err := stdout.Write(out); err != nil {
		return 1
	}
	return 0
}

// ask asks what changed in the tree at dir since token: watchman itself
// when the token is its clock and watchman is on PATH (askWatchman), else
// the hook, as git would run it. Both the capture's question before its
// scan (AskUnchanged) and the scan's own query (FsmonitorQuery) ask this
// way: the hook asks the same watchman the same question, and git's
// sample hook spent more on Perl and its JSON module than the rest of a
// monitored scan (docs/speed.md, "With a file system monitor"). Only the
// clock's own watchman can answer from it (sameWatch), so asking it
// directly cannot answer for another monitor; and it lists every path
// but those in .git, so a hook that leaves more out only makes git check
// more. asked names who answered, for a trace.
func ask(ctx context.Context, hook, token, dir string, environ []string, stderr io.Writer) (out []byte, asked string, err error) {
	env := without(environ, []string{fsmonitorHookVar, fsmonitorTokenVar})
	if out, err := askWatchman(ctx, token, dir, env); err == nil {
		return out, "watchman", nil
	}
	out, err = runHook(ctx, hook, token, dir, env, stderr)
	return out, "fsmonitor hook", err
}

// askWatchman asks watchman what changed in the tree at dir since token,
// one of its clocks, as git's sample hook asks it: every path but those
// in .git. It returns the answer in a hook's form (the new clock, then
// each path, each ended by NUL), a fresh instance's answer as "/"
// (everything, as the hook would list every file), or an error when
// token is no watchman clock, watchman is not on PATH or not running, or
// the question failed (a tree not watched): the caller then asks the
// hook.
func askWatchman(ctx context.Context, token, dir string, env []string) ([]byte, error) {
	if !strings.HasPrefix(token, "c:") {
		return nil, errors.New("not a watchman clock")
	}
	prog, err := exec.LookPath("watchman")
	if err != nil {
		return nil, err
	}
	query, err := json.Marshal([]any{"query", dir, map[string]any{
		"since": token, "fields": []string{"name"}, "empty_on_fresh_instance": true,
		"expression": []any{"not", []string{"dirname", ".git"}},
	}})
	if err != nil {
		return nil, err
	}
	// --no-spawn: a watchman that is not running (or another one's state
	// directory, from another TMPDIR) is the hook's to start, not ours.
	// --no-local: without it, watchman answers a query with no server
	// itself, by crawling the whole tree as a fresh instance, and the
	// capture then scanned it all again.
	cmd := exec.CommandContext(ctx, prog, "--no-spawn", "--no-local", "-j", "--no-pretty")
	cmd.Dir, cmd.Env, cmd.Stdin = dir, env, bytes.NewReader(query)
	out, err := cmd.Output()
	if err != nil {
		return nil, err
	}
	var res struct {
		Clock string   `json:"clock"`
		Fresh bool     `json:"is_fresh_instance"`
		Files []string `json:"files"`
		Error string   `json:"error"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		return nil, err
	}
	if res.Error != "" || res.Clock == "" {
		return nil, fmt.Errorf("watchman: %s", res.Error)
	}
	if res.Fresh {
		res.Files = []string{"/"}
	}
	answer := []byte(res.Clock + "\x00")
	for _, f := range res.Files {
		answer = append(append(answer, f...), 0)
	}
	return answer, nil
}

// runHook runs a core.fsmonitor hook as git does: through the shell, with
// the interface version (2) and the token to answer from.
func runHook(ctx context.Context, hook, token, dir string, env []string, stderr io.Writer) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", hook+` "$@"`, hook, "2", token)
	cmd.Dir, cmd.Env, cmd.Stderr = dir, env, stderr
	return cmd.Output()
}

// Unchanged asks the user's hook, as git would ask it, what changed in the
// working tree since token, a token a scan's query saved (TokenEnv). It
// reports true only when the answer names no path (but .git) and comes
// from the same watch as token (see FsmonitorQuery: another instance's
// answer lists what exists, not what changed). The token is not moved on:
// as long as the answer is "nothing", it names the same tree, and the
// first change makes the caller scan, which saves a new one. Any failure
// is "changed": the caller then scans.
func (r *Runner) Unchanged(ctx context.Context, token string) bool {
	return r.Fsmonitor != nil && AskUnchanged(ctx, r.Fsmonitor.Hook, token, r.Dir, r.Env, r.Trace)
}

// AskUnchanged is Unchanged with the hook, directory and environment
// given: the question a capture asks before discovery has given it its
// runner (capture.Early), from the hook the last monitored scan used.
// trace, when set, gets the question's time and who answered (ask).
func AskUnchanged(ctx context.Context, hook, token, dir string, env []string, trace io.Writer) bool {
	if hook == "" || token == "" {
		return false
	}
	start := time.Now()
	out, asked, err := ask(ctx, hook, token, dir, env, io.Discard)
	if trace != nil {
		fmt.Fprintf(trace, "trace: %.1f ms %s since the last scan\n", float64(time.Since(start))/float64(time.Millisecond), asked)
	}
	if err != nil {
		return false
	}
	cur, rest, ok := bytes.Cut(out, []byte{0})
	if !ok || len(cur) == 0 || !sameWatch(token, string(cur)) {
		return false
	}
	for _, p := range bytes.Split(rest, []byte{0}) {
		// The sample hook leaves out what is inside .git but not .git
		// itself, whose entries change with every rewrite of the real
		// index or the configuration (which the capture checks itself).
		if len(p) > 0 && string(p) != ".git" && !bytes.HasPrefix(p, []byte(".git/")) {
			return false
		}
	}
	return true
}

// sameWatch reports whether two watchman clocks come from the same
// instance and root.
func sameWatch(old, cur string) bool {
	a, b := strings.Split(old, ":"), strings.Split(cur, ":")
	if len(a) != 5 || len(b) != 5 || a[0] != "c" || b[0] != "c" {
		return false
	}
	for i := 1; i < 4; i++ {
		if a[i] != b[i] || a[i] == "" {
			return false
		}
	}
	return true
}

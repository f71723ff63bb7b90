package hook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/git-checkpoint/git-checkpoint/internal/agents"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// Read reads and parses the agent's event: from stdin, up to
// agents.MaxInput, unless the event comes in the arguments (a git hook
// has the terminal as stdin, which is then left alone). When stdin cannot
// be read in time, the error says so and ev is what the arguments alone
// gave.
func Read(ctx context.Context, agent string, args []string, stdin io.Reader) (*agents.Event, error) {
	var data []byte
	var truncated bool
	var readErr error
	if a, _ := agents.Lookup(agent); a.ReadsStdin(args) {
		data, truncated, readErr = readEvent(ctx, stdin)
	}
	ev, err := agents.Parse(agent, args, data, truncated)
	if readErr != nil {
		err = readErr
	}
	return ev, err
}

// readEvent reads a hook's standard input up to agents.MaxInput, giving up
// when ctx ends. What lies beyond the cap is read and dropped in the
// background, so the agent never fails writing it.
func readEvent(ctx context.Context, r io.Reader) ([]byte, bool, error) {
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		data, err := io.ReadAll(io.LimitReader(r, agents.MaxInput+1))
		done <- result{data, err}
		if len(data) > agents.MaxInput {
			io.Copy(io.Discard, r)
		}
	}()
	select {
	case res := <-done:
		if res.err != nil {
			return nil, false, fmt.Errorf("cannot read the event: %v", res.err)
		}
		if len(res.data) > agents.MaxInput {
			return res.data[:agents.MaxInput], true, nil
		}
		return res.data, false, nil
	case <-ctx.Done():
		return nil, false, errors.New("no event arrived on stdin in time")
	}
}

// Tree is the directory whose working tree the event is about: the
// project directory an agent names in the environment, else the event's
// cwd, which follows the agent's `cd`, else dir, where the hook runs.
func Tree(getenv func(string) string, agent string, ev *agents.Event, dir string) string {
	a, _ := agents.Lookup(agent)
	if a.ProjectDirEnv != "" {
		if d := getenv(a.ProjectDirEnv); isDirectory(d) {
			return d
		}
	}
	if ev != nil && filepath.IsAbs(ev.Cwd) && isDirectory(ev.Cwd) {
		return ev.Cwd
	}
	return dir
}

func isDirectory(p string) bool {
	if p == "" {
		return false
	}
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// perTool reports whether the event's capture takes only the files a
// tool names, without a scan: a tool call that says exactly what it
// changed, in full.
func perTool(ev *agents.Event) bool {
	return ev.Reason == store.ReasonTool && ev.Exact && !ev.Truncated
}

// absolute makes the names an event gave absolute, or returns nil when one
// is relative and the event names no directory to resolve it from: then
// the whole tree is scanned.
func absolute(cwd string, names []string) []string {
	out := make([]string, 0, len(names))
	for _, n := range names {
		if !filepath.IsAbs(n) {
			if !filepath.IsAbs(cwd) {
				return nil
			}
			n = filepath.Join(cwd, n)
		}
		out = append(out, n)
	}
	return out
}

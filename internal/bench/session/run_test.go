package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/agenttest"
	"github.com/git-checkpoint/git-checkpoint/internal/bench"
)

// bed is one tree and what runs on it.
type bed struct {
	t     testing.TB
	o     *options
	tree  *bench.Tree
	files int
	env   []string // the fixture's commands': bench.Env
	// monitor is watchman for the watched arm; nil where it cannot run.
	monitor *monitor
}

// sessionRun is what one session took and left.
type sessionRun struct {
	elapsed time.Duration
	version string // Claude Code's, from its first event
}

// arm is how a session runs; the hooked and watched arms also run once
// traced (session's traceDir).
type arm int

const (
	// hooked: the hooks install writes.
	hooked arm = iota
	// idle: the same hooks, each running `true`, what any hook costs the
	// agent (its shell, the event it writes) and no product can save.
	idle
	// bare: no hooks.
	bare
	// watched: the hooks, with checkpoint.fsmonitor and watchman, as a
	// person with a large tree is told to run them (monitor_test.go).
	watched
)

func (a arm) String() string {
	return [...]string{"with the hooks", "hooks running true", "without hooks", "hooks and watchman"}[a]
}

// session runs one scripted session of round on a freshly reset tree as
// a says and returns its wall time: from the agent's start to its exit,
// the model's replies and every hook included, the reset and install not.
// A traced session leaves each hook's event, trace and wall time in
// traceDir.
func (b *bed) session(round int, a arm, traceDir string) (sessionRun, error) {
	t := b.t
	if err := b.tree.Reset(); err != nil {
		return sessionRun{}, err
	}
	dir := b.tree.Dir()
	if a == watched {
		stop, err := b.monitor.watch(b.git)
		if err != nil {
			return sessionRun{}, err
		}
		defer stop()
	}
	if a != bare {
		// A person's repository has its private index from earlier
		// sessions: the capture that seeds it is not timed (twice with a
		// monitor: the second gives the private index its token).
		seed := [][]string{{"checkpoint", "install", "claude"}, {"checkpoint"}}
		if a == watched {
			seed = append(seed, []string{"checkpoint"})
		}
		for _, args := range seed {
			if out, err := b.git(args...); err != nil {
				return sessionRun{}, fmt.Errorf("git %s: %v\n%s", strings.Join(args, " "), err, out)
			}
		}
		settings := filepath.Join(dir, ".claude", "settings.local.json")
		var err error
		switch {
		case traceDir != "":
			err = traceHooks(settings, traceDir)
		case a == idle:
			err = rewriteHooks(settings, func(string) string { return "true" })
		}
		if err != nil {
			return sessionRun{}, err
		}
	}
	p := newPlan(b.tree, dir, b.files, b.o.turns, b.o.calls, round)
	srv := agenttest.NewClaudeServer(t, p.script)
	in, feed := io.Pipe()
	results := make(chan struct{}, len(p.prompts)+1)
	done := make(chan struct{})
	go func() {
		defer feed.Close()
		for i, prompt := range p.prompts {
			if i > 0 {
				select {
				case <-results:
				case <-done:
					return
				}
			}
			if _, err := io.WriteString(feed, agenttest.ClaudeMessage(prompt)); err != nil {
				return
			}
		}
		select {
		case <-results:
		case <-done:
		}
	}()
	trace := "GIT_CHECKPOINT_TRACE="
	if traceDir != "" {
		trace += "1"
	}
	env := append(agenttest.GitEnv(), "PATH="+b.o.bin+string(os.PathListSeparator)+os.Getenv("PATH"), trace)
	if a == watched {
		env = append(env, b.monitor.agentEnv()...)
	}
	res := agenttest.RunClaude(t, agenttest.Run{
		Dir: dir, URL: srv.URL, Stdin: in, Output: &resultWatch{results: results},
		Args:    []string{"--input-format", "stream-json"},
		Env:     env,
		Timeout: time.Duration(b.o.turns) * 2 * time.Minute,
	})
	close(done)
	in.Close()
	if err := p.check(res, srv); err != nil {
		return sessionRun{}, err
	}
	if a != bare && a != idle {
		out, err := b.git("for-each-ref", "--format=x", "refs/checkpoints/")
		if n := bytes.Count(out, []byte("\n")); err != nil || n < p.calls-p.tools["Read"] {
			return sessionRun{}, fmt.Errorf("the hooked session left %d checkpoints, want at least one a call that changes files (%d): %v", n, p.calls-p.tools["Read"], err)
		}
	}
	return sessionRun{elapsed: res.Elapsed, version: claudeVersion(res.Stdout)}, nil
}

// check fails a session that did not play its script: the agent failed,
// a turn is missing, a tool call failed (an Edit that found nothing to
// replace would make a cheaper session than the one scripted), or the
// model was asked less than the script says.
func (p *plan) check(res *agenttest.Result, srv *agenttest.Server) error {
	switch {
	case res.Err != nil:
		return fmt.Errorf("claude: %s", res)
	case strings.Count(res.Stdout, `"type":"result"`) != len(p.prompts):
		return fmt.Errorf("claude ended %d turns, want %d:\n%s", strings.Count(res.Stdout, `"type":"result"`), len(p.prompts), res)
	case strings.Contains(res.Stdout, `"is_error":true`):
		return fmt.Errorf("a tool call failed:\n%s", failedLines(res.Stdout))
	case len(srv.Steps()) < p.replies:
		return fmt.Errorf("the model was asked %d times, want %d:\n%s", len(srv.Steps()), p.replies, srv.Dump())
	}
	if _, err := os.Stat(p.lastWrite); err != nil {
		return fmt.Errorf("the session's last Write is missing: %v", err)
	}
	return nil
}

// failedLines are the output lines that report an error, cut short.
func failedLines(out string) string {
	var b strings.Builder
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, `"is_error":true`) {
			if len(l) > 600 {
				l = l[:600] + "..."
			}
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

var versionRE = regexp.MustCompile(`"claude_code_version":"([^"]+)"`)

func claudeVersion(stdout string) string {
	if m := versionRE.FindStringSubmatch(stdout); m != nil {
		return m[1]
	}
	return "(version unknown)"
}

// resultWatch reads the agent's stream-json output as it comes and
// signals each turn's result event, when the next prompt may go.
type resultWatch struct {
	results chan<- struct{}
	partial []byte
}

func (w *resultWatch) Write(b []byte) (int, error) {
	w.partial = append(w.partial, b...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			return len(b), nil
		}
		line := w.partial[:i]
		var ev struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(line, &ev) == nil && ev.Type == "result" {
			select {
			case w.results <- struct{}{}:
			default:
			}
		}
		w.partial = w.partial[i+1:]
	}
}

// git runs git in the tree with the fixture's environment and the
// binaries under test first on PATH.
func (b *bed) git(args ...string) ([]byte, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = b.tree.Dir(), b.env
	return cmd.CombinedOutput()
}

// scanLines calls f with each line of path.
func scanLines(path string, f func(string)) error {
	fh, err := os.Open(path)
	if err != nil {
		return err
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		f(sc.Text())
	}
	return sc.Err()
}

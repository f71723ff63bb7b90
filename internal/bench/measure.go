package bench

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// sample is one timed run of a case: wall time from before the first fork
// to after the last exit, CPU time, the peak resident memory of any
// process it started, and how many git processes the tool ran (from its
// trace). CPU time is shown beside wall time because a shared machine
// stretches wall time in ways the ratios only partly cancel.
type sample struct {
	dur    time.Duration
	cpu    time.Duration // user and system time of the process and its children
	rssKB  int64
	procs  int
	stdout []byte
	trace  []byte // the tool's stderr: its GIT_CHECKPOINT_TRACE lines
}

// add accumulates a case made of several commands (the fresh-index method).
func (s *sample) add(o sample) {
	s.dur += o.dur
	s.cpu += o.cpu
	s.rssKB = max(s.rssKB, o.rssKB)
	s.procs += o.procs
	s.stdout = append(s.stdout, o.stdout...)
	s.trace = append(s.trace, o.trace...)
}

// timed runs one command and measures it. Peak memory and CPU time come
// from the rusage wait4 returns, which on Linux covers the child and every
// descendant it waited for, so git-checkpoint's figures include its git
// processes.
func timed(dir string, env []string, stdin []byte, name string, args ...string) (sample, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	s := sample{dur: time.Since(start), stdout: stdout.Bytes(), trace: stderr.Bytes()}
	if err != nil {
		return s, fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, clip(stderr.String()))
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		s.rssKB = ru.Maxrss
		s.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	// git-checkpoint traces each git process it runs; git itself is one.
	s.procs = strings.Count(stderr.String(), "trace: git ")
	if s.procs == 0 && name == "git" {
		s.procs = 1
	}
	return s, nil
}

// runQuiet runs a setup command whose time does not count.
func runQuiet(dir string, env []string, stdin []byte, name string, args ...string) ([]byte, error) {
	s, err := timed(dir, env, stdin, name, args...)
	return s.stdout, err
}

func clip(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 2000 {
		return s[:1000] + "\n...\n" + s[len(s)-1000:]
	}
	return s
}

// Package program finds and runs the person's own programs the way a
// shell does: `git checkpoint run CMD`, `git rewind --bisect CMD` and the
// helper programs installed beside git-checkpoint. It holds the shell's
// conventions once: where a name is looked up, and how an exit is told
// (127 not found, 126 not executable, 128+N killed by signal N).
package program

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
)

// MCPServer is the program that serves the Model Context Protocol, which
// `git checkpoint mcp` runs in its place (see cli's mcpCmd for why it is
// a program of its own).
const MCPServer = "git-checkpoint-mcp"

// The exit statuses a shell gives a program it could not run.
const (
	notFound      = 127
	notExecutable = 126
)

// LookPath finds the program as a shell would, relative to dir; a missing
// program is not_found.command (exit 127), one that is there but cannot
// be run failed.command_not_executable (exit 126).
func LookPath(name, dir, pathEnv string) (string, error) {
	var candidates []string
	if strings.Contains(name, "/") {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		candidates = []string{p}
	} else {
		for _, d := range filepath.SplitList(pathEnv) {
			if d == "" {
				d = "."
			}
			if !filepath.IsAbs(d) {
				d = filepath.Join(dir, d)
			}
			candidates = append(candidates, filepath.Join(d, name))
		}
	}
	found := ""
	for _, p := range candidates {
		fi, err := os.Stat(p)
		if err != nil || fi.IsDir() {
			continue
		}
		if fi.Mode()&0o111 != 0 {
			return p, nil
		}
		if found == "" {
			found = p
		}
	}
	if found != "" {
		return "", fault.New(fault.FailedCommandNotExecutable, "%s: permission denied", fault.Quote(name)).
			WithHint("make it executable (chmod +x), or run it through its interpreter")
	}
	return "", fault.New(fault.NotFoundCommand, "%s: command not found", fault.Quote(name))
}

// StartFailure is the error of a program found but not started: not
// executable (a file without the bit, or no format the kernel runs) or
// gone meanwhile. Its code maps to the status a shell would give.
func StartFailure(err error, name string) error {
	if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.ENOEXEC) {
		return fault.Wrap(err, fault.FailedCommandNotExecutable, "cannot run %s", fault.Quote(name))
	}
	return fault.Wrap(err, fault.NotFoundCommand, "cannot run %s", fault.Quote(name))
}

// ShellStatus is the status a shell reports for a program that could not
// run because of err (LookPath's or StartFailure's).
func ShellStatus(err error) int {
	if fault.As(err).Code == fault.FailedCommandNotExecutable {
		return notExecutable
	}
	return notFound
}

// Status is the exit status of a program that ran, as a shell reports
// it: its own, or 128+N when signal N killed it.
func Status(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// Beside finds the helper program name beside the running binary (where
// make install, go install and the release archives put them all;
// symlinks resolved), else on pathEnv; "" when it is in neither place.
func Beside(name, pathEnv string) string {
	if self, err := os.Executable(); err == nil {
		if self, err = filepath.EvalSymlinks(self); err == nil {
			beside := filepath.Join(filepath.Dir(self), name)
			if fi, err := os.Stat(beside); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
				return beside
			}
		}
	}
	path, _ := LookPath(name, "/", pathEnv)
	return path
}

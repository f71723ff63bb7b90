package checkpoint_test

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/gittest"
	"github.com/git-checkpoint/git-checkpoint/internal/scripttest"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// These helpers drive the real binaries, as the transcripts do: TestMain
// put the test binary on PATH as git-checkpoint and git-rewind, so
// `git checkpoint` goes through git's own dispatch.

// gitEnv is the environment of the Go tests' git processes: gittest's,
// which the transcripts share, plus extra.
func gitEnv(t *testing.T, extra ...string) []string {
	t.Helper()
	return append(gittest.Env(t), extra...)
}

// result is how a process ended.
type result struct {
	code           int // exit status; 128+N when killed by signal N
	signaled       bool
	stdout, stderr string
}

// command returns an unstarted process in dir.
func command(dir string, env []string, name string, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	return cmd, &stdout, &stderr
}

// finish waits for cmd and describes how it ended.
func finish(t *testing.T, cmd *exec.Cmd, stdout, stderr *bytes.Buffer) result {
	t.Helper()
	err := cmd.Wait()
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			r.signaled, r.code = true, 128+int(ws.Signal())
		}
	case err != nil:
		t.Fatalf("%s: %v", strings.Join(cmd.Args, " "), err)
	}
	return r
}

// run runs a command to its end.
func run(t *testing.T, dir string, env []string, name string, args ...string) result {
	t.Helper()
	return runInput(t, dir, env, "", name, args...)
}

// runInput runs a command to its end with stdin as its input (none when
// empty).
func runInput(t *testing.T, dir string, env []string, stdin, name string, args ...string) result {
	t.Helper()
	cmd, stdout, stderr := command(dir, env, name, args...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return finish(t, cmd, stdout, stderr)
}

// must runs a command and fails the test unless it exits with want.
func must(t *testing.T, want int, dir string, env []string, name string, args ...string) result {
	t.Helper()
	r := run(t, dir, env, name, args...)
	if r.code != want {
		t.Fatalf("%s %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", name, strings.Join(args, " "), r.code, want, r.stdout, r.stderr)
	}
	return r
}

// manifest describes every file and symlink below root except .git: kind,
// exec bit and content digest or link target. Directories are implied.
func manifest(t *testing.T, root string) map[string]string {
	t.Helper()
	m, err := scripttest.Manifest(root)
	if err != nil {
		t.Fatal(err)
	}
	m = scripttest.WithoutMtime(m)
	maps.DeleteFunc(m, func(_, kind string) bool { return kind == "dir" })
	return m
}

// sameTree fails the test unless two manifests are equal.
func sameTree(t *testing.T, what string, want, got map[string]string) {
	t.Helper()
	if diffs := scripttest.Diff(want, got); len(diffs) > 0 {
		if len(diffs) > 10 {
			diffs = append(diffs[:10], fmt.Sprintf("... and %d more", len(diffs)-10))
		}
		t.Fatalf("%s differs:\n%s", what, strings.Join(diffs, "\n"))
	}
}

func writeFile(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

// wholeJournal reads the journal of the state directory stateDir, which
// must parse and chain without a problem.
func wholeJournal(t *testing.T, stateDir string) *store.Journal {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(stateDir, "journal.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	j := store.ParseJournal(data)
	if len(j.Problems()) > 0 {
		t.Fatalf("the journal has problems: %v", j.Problems())
	}
	return j
}

// Package gittest gives tests a git that does not depend on the machine it
// runs on: no system or global configuration, a fixed identity and clock,
// the C locale, and a temporary repository to run it in. Without it, a
// developer's user.name, commit.gpgSign, init.defaultBranch or hooks path
// would leak into the tests, and commit ids would change from run to run.
//
// The transcripts (internal/scripttest) share Vars, so a Go test and a
// transcript see the same git. The package is for tests only; it does not
// import the project's git runner, so that runner's own tests can use it.
package gittest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Date is the author and committer date of every test commit.
const Date = "2026-01-02T03:04:05Z"

// Identity is the fixed author and committer, and their dates: what git
// needs to commit on a machine where no identity is configured.
func Identity() []string {
	return []string{
		"GIT_AUTHOR_NAME=A U Thor", "GIT_AUTHOR_EMAIL=author@example.com",
		"GIT_COMMITTER_NAME=C O Mitter", "GIT_COMMITTER_EMAIL=committer@example.com",
		"GIT_AUTHOR_DATE=" + Date, "GIT_COMMITTER_DATE=" + Date,
	}
}

// Vars are the variables of a hermetic git, home being its HOME: the
// global configuration is the one home holds (none when it is empty, XDG's
// included), the system's configuration and attributes are not read, and
// the identity, dates, time zone
// and locale are fixed so that ids and messages are the same everywhere.
//
// With GIT_CHECKPOINT_TEST_FSMONITOR naming an fsmonitor hook, every
// repository also has it as core.fsmonitor and checkpoint.fsmonitor on, so
// that the whole suite can run with captures asking the monitor.
func Vars(home string) []string {
	return append(append([]string{
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_ATTR_NOSYSTEM=1",
	}, append(Identity(), "TZ=UTC", "LC_ALL=C")...), Fsmonitor()...)
}

// FsmonitorVar names the fsmonitor hook the tests run with (see Vars).
const FsmonitorVar = "GIT_CHECKPOINT_TEST_FSMONITOR"

// Fsmonitor is the configuration, as variables, that turns the monitor on
// when FsmonitorVar is set; none otherwise.
func Fsmonitor() []string {
	hook := os.Getenv(FsmonitorVar)
	if hook == "" {
		return nil
	}
	return []string{"GIT_CONFIG_COUNT=2",
		"GIT_CONFIG_KEY_0=core.fsmonitor", "GIT_CONFIG_VALUE_0=" + hook,
		"GIT_CONFIG_KEY_1=checkpoint.fsmonitor", "GIT_CONFIG_VALUE_1=true"}
}

// Env is the test process's environment for a hermetic git: every GIT_
// variable, HOME and XDG_CONFIG_HOME dropped (a developer's GIT_DIR or
// GIT_TRACE must not reach the test), then Vars of a new empty home, so
// there is no global configuration. PATH and the rest are kept.
func Env(t testing.TB) []string {
	t.Helper()
	home := filepath.Join(t.TempDir(), "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "GIT_") || name == "HOME" || name == "XDG_CONFIG_HOME" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, Vars(home)...)
}

// Repo is a temporary repository and the hermetic environment to run git
// in it.
type Repo struct {
	t   testing.TB
	Dir string   // the top of the working tree, symlinks resolved
	Env []string // from Env
}

// NewRepo makes an empty repository, on branch main, in a new temporary
// directory. Its path has symlinks resolved, as git reports it. Without
// git on PATH the test is skipped.
func NewRepo(t testing.TB) *Repo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r := &Repo{t: t, Dir: dir, Env: Env(t)}
	r.Git("init", "-q", "-b", "main")
	return r
}

// NewRepoWith makes a repository with files (slash-separated path from
// the top → content) committed, ignored ones too, in a first commit.
func NewRepoWith(t testing.TB, files map[string]string) *Repo {
	t.Helper()
	r := NewRepo(t)
	r.Write(files)
	r.Git("add", "-A", "-f")
	r.Git("commit", "-q", "--allow-empty", "-m", "initial")
	return r
}

// Write writes files (path from the top → content) into the working tree,
// making their directories.
func (r *Repo) Write(files map[string]string) {
	r.t.Helper()
	for name, content := range files {
		p := filepath.Join(r.Dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
}

// Git runs git in the repository and returns its output, without the
// final newline; a failure fails the test.
func (r *Repo) Git(args ...string) string {
	r.t.Helper()
	return r.GitInput("", args...)
}

// GitInput is Git with stdin.
func (r *Repo) GitInput(stdin string, args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = r.Dir, r.Env
	cmd.Stdin = strings.NewReader(stdin)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSuffix(string(out), "\n")
}

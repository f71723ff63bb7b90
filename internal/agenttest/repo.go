package agenttest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// GitEnv is a git environment that does not depend on the machine's
// configuration: no system or global config, a fixed identity and branch.
func GitEnv() []string {
	return []string{
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=" + os.DevNull,
		"GIT_AUTHOR_NAME=Agent Test", "GIT_AUTHOR_EMAIL=agent@example.invalid",
		"GIT_COMMITTER_NAME=Agent Test", "GIT_COMMITTER_EMAIL=agent@example.invalid",
	}
}

// NewRepo creates a git repository in a temporary directory with the given
// files (path → content) committed on branch main, and returns its path.
// The path is resolved through symlinks, because the agents report real
// paths in their hook payloads.
func NewRepo(t testing.TB, files map[string]string) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), GitEnv()...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("agenttest: git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	for name, content := range files {
		writeFile(t, filepath.Join(dir, filepath.FromSlash(name)), content)
	}
	git("add", "-A")
	git("commit", "-q", "--allow-empty", "-m", "initial")
	return dir
}

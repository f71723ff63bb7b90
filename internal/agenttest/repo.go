package agenttest

import (
	"os"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/gittest"
)

// GitEnv is a git environment that does not depend on the machine's
// configuration: no system or global config and gittest's fixed identity.
// It leaves HOME alone, since the agent keeps its own (Run.Home), so the
// global config is turned off by name.
func GitEnv() []string {
	return append([]string{"GIT_CONFIG_NOSYSTEM=1", "GIT_ATTR_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + os.DevNull}, gittest.Identity()...)
}

// NewRepo creates a git repository in a temporary directory with the given
// files (path → content) committed on branch main, and returns its path.
// The path is resolved through symlinks, because the agents report real
// paths in their hook payloads.
func NewRepo(t testing.TB, files map[string]string) string {
	t.Helper()
	return gittest.NewRepoWith(t, files).Dir
}

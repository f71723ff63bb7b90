package agenttest

import (
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/gittest"
)

// GitEnv is a git environment that does not depend on the machine's
// configuration: no system config, gittest's fixed identity, and as
// global config only the HOME every agent and fixture command runs with,
// a temporary directory (Run.Home), where a test may write one with `git
// config --global` as a person would. The global config is never named
// by GIT_CONFIG_GLOBAL: a `git config --global` would then replace the
// named file (/dev/null once, as root) by a regular one; and the product reads
// checkpoint.mcpRewind only from a global file git found itself.
// XDG_CONFIG_HOME empty is unset to git.
func GitEnv() []string {
	return append([]string{"GIT_CONFIG_NOSYSTEM=1", "GIT_ATTR_NOSYSTEM=1", "XDG_CONFIG_HOME="}, gittest.Identity()...)
}

// NewRepo creates a git repository in a temporary directory with the given
// files (path → content) committed on branch main, and returns its path.
// The path is resolved through symlinks, because the agents report real
// paths in their hook payloads.
func NewRepo(t testing.TB, files map[string]string) string {
	t.Helper()
	return gittest.NewRepoWith(t, files).Dir
}

// Package scripttest holds the environment and the custom commands of the
// testscript transcripts in testdata/scripts (documented in the README
// there). It is used only by tests.
package scripttest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/gittest"
	"github.com/rogpeppe/go-internal/testscript"
)

// Setup gives each transcript the hermetic git of the Go tests (gittest)
// with a private HOME whose configuration names the default branch.
// testscript starts from an almost empty environment, which git would
// otherwise fill from the machine's own configuration.
func Setup(env *testscript.Env) error {
	// HOME sits beside $WORK, not in it: a repository made at $WORK
	// would otherwise capture the test's own .gitconfig.
	home := env.WorkDir + ".home"
	if err := os.MkdirAll(home, 0o755); err != nil {
		return err
	}
	gitconfig := "[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n"
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(gitconfig), 0o644); err != nil {
		return err
	}
	for _, kv := range gittest.Vars(home) {
		name, value, _ := strings.Cut(kv, "=")
		env.Setenv(name, value)
	}
	// Output is plain and unpaged, so that stdout checks see all of it.
	for _, kv := range [][2]string{{"NO_COLOR", ""}, {"GIT_PAGER", "cat"}, {"PAGER", "cat"}} {
		env.Setenv(kv[0], kv[1])
	}
	// unprivileged CMD... runs CMD where file permissions apply: as root
	// (CI runs tests as root) without the capabilities that bypass them,
	// as anyone else as it is.
	bin := filepath.Join(home, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(bin, "unprivileged"), []byte(unprivileged), 0o755); err != nil {
		return err
	}
	env.Setenv("PATH", bin+string(os.PathListSeparator)+env.Getenv("PATH"))
	env.Values[stateKey{}] = map[string]map[string]string{}
	return nil
}

// Condition answers the transcripts' own conditions: [fsmonitor] holds
// when the suite runs with captures asking a file system monitor
// (gittest.FsmonitorVar), whose scan is one git status at any size;
// [root] when the tests run as root, who alone can give a directory to
// another user (chown), as a repository git refuses for its owner is;
// [ci] in CI (CI=true), where a program .ci/run installs must be there.
func Condition(cond string) (bool, error) {
	switch cond {
	case "ci":
		return os.Getenv("CI") == "true", nil
	case "fsmonitor":
		return len(gittest.Fsmonitor()) > 0, nil
	case "root":
		return os.Geteuid() == 0, nil
	}
	return false, fmt.Errorf("unknown condition %q", cond)
}

const unprivileged = `#!/bin/sh
if [ "$(id -u)" = 0 ]; then
	exec setpriv --bounding-set=-dac_override,-dac_read_search -- "$@"
fi
exec "$@"
`

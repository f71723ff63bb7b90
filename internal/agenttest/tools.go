package agenttest

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Missing stops the test because a program it runs is not installed: a
// skip on a developer's machine, saying so, and a failure in CI
// (CI=true), where .ci/run installs everything and a skip would hide a
// broken install.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf(format, args...)
	}
	t.Skipf(format, args...)
}

// BuildTools builds git-checkpoint, git-rewind and their helpers
// (git-checkpoint-mcp, git-checkpoint-scan) into a temporary directory
// and returns it: the agents' hooks and the editors find them there
// through PATH, as they would find an installed copy. It looks at the
// module's Go files and the files also accepts (WatchSources), so that a
// change to the binaries, or to what the test has another program read,
// runs the test again.
func BuildTools(t testing.TB, also func(rel string) bool) string {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command("go", "build", "-o", dir+string(filepath.Separator),
		"github.com/git-checkpoint/git-checkpoint/cmd/git-checkpoint",
		"github.com/git-checkpoint/git-checkpoint/cmd/git-rewind",
		"github.com/git-checkpoint/git-checkpoint/cmd/git-checkpoint-mcp",
		"github.com/git-checkpoint/git-checkpoint/cmd/git-checkpoint-scan")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	WatchSources(t, also)
	return dir
}

// ModuleRoot is the top of the module's source tree.
func ModuleRoot(t testing.TB) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	return filepath.Dir(strings.TrimSpace(string(out)))
}

// WatchSources looks at every Go file of the module, and at the files
// also accepts (a path from the module's top, slash-separated), when it
// is given. go test reports a cached pass until the test binary or a
// file the test looked at changes, and what these tests run is built
// apart from the test binary: without this, a change to it would not run
// the tests again.
func WatchSources(t testing.TB, also func(rel string) bool) {
	t.Helper()
	root := ModuleRoot(t)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(root, path)
		if !d.IsDir() && (strings.HasSuffix(path, ".go") || (also != nil && also(filepath.ToSlash(rel)))) {
			_, err = os.Stat(path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

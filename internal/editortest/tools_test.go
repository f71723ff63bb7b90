package editortest

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// missing stops the test because a piece it runs is not installed: a skip
// on a developer's machine, a failure in CI (CI=true), where .ci/run
// installs everything and a skip would hide a broken install.
func missing(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf(format, args...)
	}
	t.Skipf(format, args...)
}

// root is the top of the module's source tree.
func root(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	return filepath.Dir(strings.TrimSpace(string(out)))
}

// editorsDir is the npm prefix .ci/install-editors installs into:
// $GIT_CHECKPOINT_EDITORS_DIR, or git-checkpoint/editors under the user's
// cache directory.
func editorsDir(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("GIT_CHECKPOINT_EDITORS_DIR"); d != "" {
		if !filepath.IsAbs(d) {
			t.Fatalf("GIT_CHECKPOINT_EDITORS_DIR=%s is not an absolute path", d)
		}
		return d
	}
	c, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(c, "git-checkpoint", "editors")
}

// checkPins makes sure every devDependency of the package.json files is
// installed in prefix at its pinned version: a test against another
// code-server, or an extension built by another compiler, proves nothing
// about the pinned ones.
func checkPins(t *testing.T, prefix string, packageJSONs ...string) {
	t.Helper()
	for _, pj := range packageJSONs {
		var doc struct {
			DevDependencies map[string]string `json:"devDependencies"`
		}
		readJSON(t, pj, &doc)
		for pkg, want := range doc.DevDependencies {
			var got struct{ Version string }
			b, err := os.ReadFile(filepath.Join(prefix, "node_modules", pkg, "package.json"))
			if err == nil {
				err = json.Unmarshal(b, &got)
			}
			if err != nil || got.Version != want {
				missing(t, "editortest: %s@%s is not installed in %s (found %q)\nhint: run .ci/install-editors", pkg, want, prefix, got.Version)
			}
		}
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// buildTools builds git-checkpoint and git-rewind (and their helpers)
// into a new directory and returns it: the extension finds them there
// through PATH, as it would find an installed copy.
func buildTools(t *testing.T) string {
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
	return dir
}

// watchSources looks at every Go file of the module and every file of
// editors/: go test reports a cached pass until a file the test looked at
// changes, and the binaries, the extension and its driver are built and
// run apart from the test binary.
func watchSources(t *testing.T, top string) {
	t.Helper()
	err := filepath.WalkDir(top, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != top && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "out") {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(top, path)
		if !d.IsDir() && (strings.HasSuffix(path, ".go") || strings.HasPrefix(rel, "editors"+string(filepath.Separator))) {
			_, err = os.Stat(path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

package editortest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/agenttest"
)

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
				agenttest.Missing(t, "editortest: %s@%s is not installed in %s (found %q)\nhint: run .ci/install-editors", pkg, want, prefix, got.Version)
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

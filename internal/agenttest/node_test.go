package agenttest

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestNodePath checks that the pinned Node.js runs at its pinned version.
func TestNodePath(t *testing.T) {
	dir := NodePath(t)
	out, err := exec.Command(filepath.Join(dir, "node"), "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.TrimSpace(string(out)), "v"+agentPackages()["node"].Version; got != want {
		t.Errorf("the pinned node is %s, want %s", got, want)
	}
}

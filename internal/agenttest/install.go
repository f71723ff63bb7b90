package agenttest

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"
)

// agentsTxt pins each agent's npm package and version. The same file is read
// by .ci/install-agents, so CI and a developer's machine run the same
// programs.
//
//go:embed agents.txt
var agentsTxt string

// agentPackage is one line of agents.txt.
type agentPackage struct {
	Name, Package, Version string
}

func agentPackages() map[string]agentPackage {
	out := map[string]agentPackage{}
	for _, line := range strings.Split(agentsTxt, "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || strings.HasPrefix(f[0], "#") {
			continue
		}
		out[f[0]] = agentPackage{f[0], f[1], f[2]}
	}
	return out
}

// AgentsDir is the npm prefix the agents are installed into:
// $GIT_CHECKPOINT_AGENTS_DIR, or git-checkpoint/agents under the user's cache
// directory. It is a prefix of its own so that tests never depend on, or
// change, a globally installed agent. The variable must hold an absolute
// path: go test runs in each package's directory, so a relative one would
// name a different place for each package and for .ci/install-agents.
func AgentsDir() (string, error) {
	if d := os.Getenv("GIT_CHECKPOINT_AGENTS_DIR"); d != "" {
		if !filepath.IsAbs(d) {
			return "", fmt.Errorf("GIT_CHECKPOINT_AGENTS_DIR=%s is not an absolute path", d)
		}
		return d, nil
	}
	c, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(c, "git-checkpoint", "agents"), nil
}

// Binary returns the path of agent name (a name of agents.txt) at its
// pinned version, installing it with npm into AgentsDir when it is
// missing or at another version. Without node or npm it skips the test,
// or fails it in CI (Missing); a failed install fails it.
func Binary(t testing.TB, name string) string {
	t.Helper()
	pkg, ok := agentPackages()[name]
	if !ok {
		t.Fatalf("agenttest: unknown agent %q", name)
	}
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			Missing(t, "agenttest: %s is not installed, so the %s agent cannot be run", tool, name)
		}
	}
	dir, err := AgentsDir()
	if err != nil {
		t.Fatalf("agenttest: no directory for the agents: %v", err)
	}
	bin := filepath.Join(dir, "node_modules", ".bin", name)
	if installedVersion(dir, pkg.Package) == pkg.Version {
		return bin
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("agenttest: %v", err)
	}
	// Test binaries of several packages may get here at once.
	lock := flock.New(filepath.Join(dir, ".install.lock"))
	if err := lock.Lock(); err != nil {
		t.Fatalf("agenttest: lock %s: %v", dir, err)
	}
	defer lock.Unlock()
	if installedVersion(dir, pkg.Package) == pkg.Version {
		return bin
	}
	t.Logf("agenttest: installing %s@%s into %s", pkg.Package, pkg.Version, dir)
	start := time.Now()
	out, err := npmInstall(dir, pkg)
	if err != nil {
		t.Fatalf("agenttest: npm install %s@%s failed: %v\n%s\nhint: run .ci/install-agents, or set GIT_CHECKPOINT_AGENTS_DIR to a prefix holding the agents", pkg.Package, pkg.Version, err, out)
	}
	if v := installedVersion(dir, pkg.Package); v != pkg.Version {
		t.Fatalf("agenttest: after npm install, %s is at version %q, want %s\n%s", pkg.Package, v, pkg.Version, out)
	}
	t.Logf("agenttest: installed %s in %s", name, time.Since(start).Round(time.Second))
	return bin
}

// NodePath is the directory of the pinned Node.js (agents.txt's node),
// installing it when it is missing: put it first on PATH to run an agent
// that needs a newer Node than the machine's. It holds the agents' own
// commands too, as every npm prefix's .bin does.
func NodePath(t testing.TB) string {
	t.Helper()
	return filepath.Dir(Binary(t, "node"))
}

// nodeFirst puts the pinned Node.js (NodePath) first on the PATH the run
// ends with: run.Env's, which overrides the launch's, when it sets one,
// else the test's.
func nodeFirst(t testing.TB, run *Run) {
	t.Helper()
	path := os.Getenv("PATH")
	for _, kv := range run.Env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	run.Env = append(slices.Clip(run.Env), "PATH="+NodePath(t)+string(os.PathListSeparator)+path)
}

// npmInstall installs one pinned package into the prefix dir. --save-exact
// records it in dir/package.json: npm removes from the prefix whatever that
// file does not list, so the agents installed earlier stay.
func npmInstall(dir string, pkg agentPackage) ([]byte, error) {
	cmd := exec.Command("npm", "install", "--prefix", dir, "--save-exact",
		"--no-audit", "--no-fund", "--loglevel=error", pkg.Package+"@"+pkg.Version)
	cmd.Dir = dir
	return cmd.CombinedOutput()
}

// installedVersion reads the version of an installed package, or "".
func installedVersion(dir, pkg string) string {
	b, err := os.ReadFile(filepath.Join(dir, "node_modules", filepath.FromSlash(pkg), "package.json"))
	if err != nil {
		return ""
	}
	var p struct {
		Version string `json:"version"`
	}
	if json.Unmarshal(b, &p) != nil {
		return ""
	}
	return p.Version
}

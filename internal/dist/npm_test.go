package dist

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/agenttest"
)

// TestNPMVersion: npm takes only semver, and a development build that
// is none (a commit without a tag, "devel") becomes a prerelease of
// 0.0.0, below every release.
func TestNPMVersion(t *testing.T) {
	for in, want := range map[string]string{
		"v1.2.3":                  "1.2.3",
		"v1.2.3-4-gabcdef0":       "1.2.3-4-gabcdef0",
		"v1.2.3-4-gabcdef0-dirty": "1.2.3-4-gabcdef0-dirty",
		"a6214c3":                 "0.0.0-dev-a6214c3",
		"0123456-dirty":           "0.0.0-dev-0123456-dirty",
		"devel":                   "0.0.0-dev-devel",
	} {
		if got := npmVersion(in); got != want || !semver.MatchString(got) {
			t.Errorf("npmVersion(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestNPMInstall installs the npm packages as a person would: made from
// the release archive of this system, the top package naming every
// target's, packed by npm pack, installed by
// npm install -g into a prefix of their own with nothing fetched. Then,
// with that prefix's bin first on PATH, git finds the programs npm put
// there: git checkpoint --version, install claude, a checkpoint, a change
// and git rewind, which brings the file back. npm's postinstall made
// those programs the native binaries; a second install with
// --ignore-scripts keeps the Node launchers, which must pass on the
// arguments, the exit status and a SIGTERM.
func TestNPMInstall(t *testing.T) {
	goCmd := goCommand(t, "builds the binaries and installs them with npm")
	npm, err := exec.LookPath("npm")
	if err != nil {
		agenttest.Missing(t, "npm is not installed: the npm packages are built but not installed")
	}
	target := Target{runtime.GOOS, runtime.GOARCH}
	if !slices.Contains(Targets, target) {
		t.Skipf("no release, so no npm package, for %s", target)
	}
	src, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	var log bytes.Buffer
	o := Options{Src: src, Out: filepath.Join(work, "dist"), Version: testVersion, Time: time.Unix(0, 0),
		Targets: []Target{target}, Go: goCmd, Env: os.Environ(), Log: &log}
	if _, err := Build(t.Context(), o); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	// The top package names every target's package, as a release's
	// does; the other targets' archives are this one's bytes under their
	// names (npm passes over their packages, which are never packed).
	host := archiveName(o.Version, target)
	data, err := os.ReadFile(filepath.Join(o.Out, host))
	if err != nil {
		t.Fatal(err)
	}
	for _, other := range Targets {
		if other != target {
			if err := os.WriteFile(filepath.Join(o.Out, archiveName(o.Version, other)), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	o.Targets = Targets
	all, err := NPM(o, filepath.Join(work, "npm"))
	if err != nil {
		t.Fatal(err)
	}
	_, sub := npmPackage(target)
	dirs := []string{filepath.Join(work, "npm", sub), all[len(all)-1]}
	if len(all) != len(Targets)+1 || !slices.Contains(all, dirs[0]) || filepath.Base(dirs[1]) != npmName {
		t.Fatalf("NPM wrote %q", all)
	}
	var manifest packageJSON
	if data, err := os.ReadFile(filepath.Join(dirs[1], "package.json")); err != nil || json.Unmarshal(data, &manifest) != nil ||
		len(manifest.OptionalDependencies) != len(Targets) || manifest.Version != npmVersion(testVersion) {
		t.Fatalf("the top package.json: %v\n%s", err, data)
	}
	// npm as on a new machine: a home, cache and configuration of its
	// own, nothing fetched from a registry.
	home := filepath.Join(work, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(strings.ToLower(kv), "npm_config_") && !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	env = append(env, "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "GIT_CONFIG_NOSYSTEM=1",
		"npm_config_cache="+filepath.Join(work, "npm-cache"), "npm_config_userconfig="+filepath.Join(home, ".npmrc"),
		"npm_config_offline=true", "npm_config_audit=false", "npm_config_fund=false", "npm_config_update_notifier=false")
	run := func(dir string, env []string, name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	tarballs := filepath.Join(work, "tarballs")
	if err := os.MkdirAll(tarballs, 0o755); err != nil {
		t.Fatal(err)
	}
	var packed []string
	for _, d := range dirs {
		name := strings.TrimSpace(run(work, env, npm, "pack", "--silent", "--pack-destination", tarballs, d))
		packed = append(packed, filepath.Join(tarballs, name))
	}
	// Both tarballs in one install: the platform package is then found
	// where npm would put it from the registry, and the other systems'
	// optional packages are passed over (os and cpu) without a fetch.
	install := func(prefix string, flags ...string) (native, launcher string) {
		args := append([]string{"install", "-g", "--prefix", prefix}, flags...)
		run(work, env, npm, append(args, packed...)...)
		top := filepath.Join(prefix, "lib", "node_modules", npmName, "bin", "git-checkpoint")
		return filepath.Join(prefix, "lib", "node_modules", npmScope, sub, "bin", "git-checkpoint"), top
	}

	prefix := filepath.Join(work, "prefix")
	native, _ := install(prefix)
	onPath := filepath.Join(prefix, "bin", "git-checkpoint")
	if got, err := filepath.EvalSymlinks(onPath); err != nil || got != native {
		t.Errorf("%s is %s (%v), not the native binary %s: the postinstall did not link it", onPath, got, err, native)
	}
	if _, err := os.Stat(filepath.Join(prefix, "share", "man", "man1", "git-rewind.1")); err != nil {
		t.Errorf("npm did not install the man page: %v", err)
	}
	path := filepath.Join(prefix, "bin") + string(os.PathListSeparator) + os.Getenv("PATH")
	user := append(slices.Clone(env), "PATH="+path)
	if out := run(home, user, "git", "checkpoint", "--version"); !strings.HasPrefix(out, "git-checkpoint version ") {
		t.Errorf("git checkpoint --version printed %q", out)
	}
	repo := filepath.Join(work, "repo")
	run(work, user, "git", "init", "-q", repo)
	file := filepath.Join(repo, "a.txt")
	if err := os.WriteFile(file, []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run(repo, user, "git", "checkpoint", "install", "claude")
	if data, err := os.ReadFile(filepath.Join(repo, ".claude", "settings.local.json")); err != nil || !bytes.Contains(data, []byte("git-checkpoint hook claude")) {
		t.Errorf("install claude wrote no hooks: %v\n%s", err, data)
	}
	run(repo, user, "git", "checkpoint")
	if err := os.WriteFile(file, []byte("two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run(repo, user, "git", "rewind", "--yes")
	if data, _ := os.ReadFile(file); string(data) != "one\n" {
		t.Errorf("after git rewind a.txt holds %q, not what the checkpoint had", data)
	}

	// Without the postinstall: the Node launchers.
	prefix = filepath.Join(work, "prefix-no-scripts")
	_, launcher := install(prefix, "--ignore-scripts")
	if got, err := filepath.EvalSymlinks(filepath.Join(prefix, "bin", "git-checkpoint")); err != nil || got != launcher {
		t.Fatalf("with --ignore-scripts, git-checkpoint on PATH is %s (%v), not the launcher %s", got, err, launcher)
	}
	user = append(slices.Clone(env), "PATH="+filepath.Join(prefix, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	if out := run(home, user, "git", "checkpoint", "--version"); !strings.HasPrefix(out, "git-checkpoint version ") {
		t.Errorf("git checkpoint --version through the launcher printed %q", out)
	}
	cmd := exec.Command("git", "rewind")
	cmd.Dir, cmd.Env = home, user
	out, err := cmd.CombinedOutput()
	if cmd.ProcessState.ExitCode() != 10 || !strings.Contains(string(out), "git-rewind: error: not in a git working tree") {
		t.Errorf("git rewind outside a repository through the launcher: %v, want exit 10 and the error\n%s", err, out)
	}
	// A SIGTERM to the launcher ends the program, and the launcher ends
	// as it did. The MCP server answers first, so the program is running;
	// the end of its output, once every process holding it has gone,
	// says the program ended too, not the launcher alone.
	mcp := exec.Command(filepath.Join(prefix, "bin", "git-checkpoint-mcp"))
	mcp.Dir, mcp.Env = repo, user
	stdin, _ := mcp.StdinPipe()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	mcp.Stdout = w
	if err := mcp.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	defer r.Close()
	stdin.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}` + "\n"))
	output := bufio.NewReader(r)
	if line, err := output.ReadString('\n'); err != nil || !strings.Contains(line, `"id":1`) {
		t.Fatalf("git-checkpoint-mcp through the launcher answered %q (%v)", line, err)
	}
	mcp.Process.Signal(syscall.SIGTERM)
	ended := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, output)
		ended <- errors.Join(err, mcp.Wait())
	}()
	select {
	case <-ended:
		ws, _ := mcp.ProcessState.Sys().(syscall.WaitStatus)
		if !(ws.Signaled() && ws.Signal() == syscall.SIGTERM) && ws.ExitStatus() != 128+int(syscall.SIGTERM) {
			t.Errorf("after SIGTERM the launcher ended with %v, not by SIGTERM as the program did", mcp.ProcessState)
		}
	case <-time.After(20 * time.Second):
		mcp.Process.Kill()
		t.Fatal("the program was still running 20 s after its launcher's SIGTERM")
	}
}

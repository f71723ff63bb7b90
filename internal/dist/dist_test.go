package dist

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/complete"
)

// copyModule copies the module's source (not .git, bin or dist) to dst.
func copyModule(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() && (rel == ".git" || rel == "bin" || rel == "dist") {
			return filepath.SkipDir
		}
		if d.Type()&fs.ModeSymlink != 0 || d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// testVersion is a development build's: a release's would need its
// changelog section and a binary stamped with its tag (checkChangelog).
const testVersion = "v9.9.9-1-g0123456"

// TestReproducible builds the host's archive twice, from the source here
// and from a copy of it elsewhere (a different build directory, so not
// the same compiled packages either), and wants the same bytes, then
// reads the archive: the files a release holds, one time, owner root,
// no build directory inside the binaries, and binaries that run.
func TestReproducible(t *testing.T) {
	goCmd := goCommand(t, "builds the binaries twice")
	src, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	target := Target{runtime.GOOS, runtime.GOARCH}
	runs := slices.Contains(Targets, target)
	if !runs {
		target = Targets[0]
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	// The copy is no git checkout, so both builds leave out what go build
	// stamps from version control: the commit's revision, time and
	// whether the tree was modified, which are the same wherever that
	// commit is built, and would differ here only between a checkout and
	// a copy.
	env := append(os.Environ(), "GOFLAGS="+strings.TrimSpace(os.Getenv("GOFLAGS")+" -buildvcs=false"))
	build := func(src string) (string, []byte) {
		out := t.TempDir()
		var log bytes.Buffer
		names, err := Build(context.Background(), Options{Src: src, Out: out, Version: testVersion, Time: at,
			Targets: []Target{target}, Go: goCmd, Env: env, Log: &log})
		if err != nil {
			t.Fatalf("%v\n%s", err, log.String())
		}
		if len(names) != 1 {
			t.Fatalf("archives %q", names)
		}
		sums, err := os.ReadFile(filepath.Join(out, "SHA256SUMS"))
		if err != nil {
			t.Fatal(err)
		}
		return filepath.Join(out, names[0]), sums
	}
	copied := filepath.Join(t.TempDir(), "elsewhere", "src")
	copyModule(t, src, copied)
	first, sums1 := build(src)
	second, sums2 := build(copied)
	if !bytes.Equal(sums1, sums2) {
		t.Fatalf("two builds of the same source differ:\n%s%s", sums1, sums2)
	}
	want := "  git-checkpoint-" + testVersion + "-" + target.String() + ".tar.gz\n"
	if !strings.HasSuffix(string(sums1), want) || len(sums1) != 64+len(want) {
		t.Fatalf("SHA256SUMS is %q", sums1)
	}
	if filepath.Base(first) != filepath.Base(second) {
		t.Fatalf("names %s and %s", first, second)
	}

	files := readArchive(t, first, at)
	top := "git-checkpoint-" + testVersion + "-" + target.String() + "/"
	var names []string
	for name := range files {
		names = append(names, strings.TrimPrefix(name, top))
	}
	slices.Sort(names)
	wantNames := []string{"CHANGELOG.md", "README.md", "bin/git-checkpoint", "bin/git-checkpoint-mcp", "bin/git-checkpoint-scan", "bin/git-rewind",
		"share/bash-completion/completions/git-checkpoint", "share/bash-completion/completions/git-rewind",
		"share/fish/vendor_completions.d/git-checkpoint.fish", "share/fish/vendor_completions.d/git-rewind.fish",
		"share/man/man1/git-checkpoint.1", "share/man/man1/git-rewind.1",
		"share/zsh/site-functions/_git-checkpoint", "share/zsh/site-functions/_git-rewind"}
	if _, err := os.Stat(filepath.Join(src, "LICENSE")); err == nil {
		wantNames = append(wantNames, "LICENSE")
		slices.Sort(wantNames)
	}
	if !slices.Equal(names, wantNames) {
		t.Fatalf("the archive holds %q, want %q", names, wantNames)
	}
	bash, _ := complete.Script("bash")
	if !bytes.Equal(files[top+"share/bash-completion/completions/git-rewind"], bash) {
		t.Errorf("the bash completion is not what git checkpoint completion bash prints")
	}
	if zsh := files[top+"share/zsh/site-functions/_git-rewind"]; !bytes.HasPrefix(zsh, []byte("#compdef git-rewind\n")) {
		t.Errorf("the zsh completion _git-rewind starts %q", zsh[:min(len(zsh), 30)])
	}
	page, _ := os.ReadFile(filepath.Join(src, "man", "git-rewind.1"))
	if !bytes.Equal(files[top+"share/man/man1/git-rewind.1"], page) {
		t.Errorf("the man page is not man/git-rewind.1")
	}
	for _, b := range binaries {
		if bytes.Contains(files[top+"bin/"+b], []byte(src)) {
			t.Errorf("%s names the directory it was built in", b)
		}
	}
	if !runs {
		t.Logf("%s binaries not run on %s/%s", target, runtime.GOOS, runtime.GOARCH)
		return
	}
	bin := filepath.Join(t.TempDir(), "git-rewind")
	if err := os.WriteFile(bin, files[top+"bin/git-rewind"], 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "git-rewind version ") {
		t.Fatalf("git-rewind --version: %v\n%s", err, out)
	}
}

// readArchive returns the regular files of a .tar.gz by name, checking
// what makes it reproducible: a gzip header without name or time, every
// entry owned by root with the time given, and entries in sorted order.
func readArchive(t *testing.T, path string, at time.Time) map[string][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	if zr.Name != "" || !zr.ModTime.IsZero() {
		t.Errorf("gzip header records name %q, time %v", zr.Name, zr.ModTime)
	}
	tr := tar.NewReader(zr)
	files := map[string][]byte{}
	var order []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		order = append(order, h.Name)
		if !h.ModTime.Equal(at) || h.Uid != 0 || h.Gid != 0 || h.Uname != "root" {
			t.Errorf("%s: time %v, owner %d:%d %s", h.Name, h.ModTime, h.Uid, h.Gid, h.Uname)
		}
		if h.Typeflag == tar.TypeReg {
			data, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			files[h.Name] = data
		}
	}
	if !slices.IsSorted(order) {
		t.Errorf("entries are not sorted: %q", order)
	}
	return files
}

// TestEveryTargetCompiles type-checks the whole module, tests included,
// for each operating system a release is built for besides this one:
// the durability and stat code speaks to each system in its own words,
// and a release that does not build for one is found only here (go vet
// type-checks without linking, so one architecture per system does).
func TestEveryTargetCompiles(t *testing.T) {
	goCmd := goCommand(t, "type-checks the module once per operating system")
	seen := map[string]bool{runtime.GOOS: true}
	for _, target := range Targets {
		if seen[target.OS] {
			continue
		}
		seen[target.OS] = true
		cmd := exec.Command(goCmd, "vet", "./...")
		cmd.Dir = "../.."
		cmd.Env = append(os.Environ(), "GOOS="+target.OS, "GOARCH="+target.Arch, "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: go vet ./...: %v\n%s", target, err, out)
		}
	}
}

// goCommand is the go command for a test that builds with it, which
// skips, saying why, in -short mode (what it costs) or without one.
func goCommand(t *testing.T, costs string) string {
	t.Helper()
	if testing.Short() {
		t.Skip(costs)
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	return goCmd
}

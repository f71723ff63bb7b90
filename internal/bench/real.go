package bench

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// The real trees (docs/speed.md, "The trees"): what exists, not what the
// generator makes, measured with the same cases as the synthetic shapes.
//
//   - goroot: a copy of the Go toolchain's own GOROOT (go env GOROOT) as a
//     git repository of one commit: about 15,000 files of real sizes and
//     depth, every one tracked.
//   - node_modules: a Next.js application whose dependencies, pinned
//     exactly by testdata/node-app/package-lock.json, are installed by the
//     machine's npm (npm ci --ignore-scripts) into the tree, about 27,000
//     files. The application's own files are committed; node_modules is
//     left untracked and not ignored, as an agent that ran npm install
//     leaves it: the state that costs every checkpoint method the most,
//     since each must hold those files and none may skip them.
//   - kubernetes: three consecutive releases of k8s.io/kubernetes from the
//     Go module proxy (go mod download), committed in order: a large Go
//     project with a little real history (module zips hold no vendor
//     directory and no nested modules, so about 8,000 files).
//
// Each is built once under the bench cache, like the synthetic trees.
// Their reset cannot use git clean (it would delete node_modules): a
// commit of everything the tree holds, refs/bench/full, written through
// an index of its own at build time, is what reset puts back.

//go:embed all:testdata/node-app
var nodeApp embed.FS

// realNames are the real shapes -shapes accepts.
var realNames = []string{"goroot", "node_modules", "kubernetes"}

func isReal(name string) bool { return slices.Contains(realNames, name) }

// kubernetesVersions are the releases the kubernetes tree commits, oldest
// first.
var kubernetesVersions = []string{"v1.31.0", "v1.31.1", "v1.31.2"}

// realGenerator is bumped whenever a real tree's build changes.
const realGenerator = "r1"

// realKey names a real tree's cached repository by what it holds: the Go
// version of the GOROOT, the lock file's hash, the releases.
func realKey(name string) string {
	switch name {
	case "goroot":
		v, _ := exec.Command("go", "env", "GOVERSION").Output()
		return fmt.Sprintf("real-%s-goroot-%s", realGenerator, strings.TrimSpace(string(v)))
	case "node_modules":
		lock, _ := nodeApp.ReadFile("testdata/node-app/package-lock.json")
		sum := sha256.Sum256(lock)
		return fmt.Sprintf("real-%s-node_modules-%x", realGenerator, sum[:6])
	default:
		return fmt.Sprintf("real-%s-kubernetes-%s-%s", realGenerator, kubernetesVersions[0], kubernetesVersions[len(kubernetesVersions)-1])
	}
}

// fullIndex is the index refs/bench/full is written and put back through.
func (f *fixture) fullIndex() []string {
	return []string{"GIT_INDEX_FILE=" + filepath.Join(f.dir, ".git", "bench-full.index")}
}

// buildReal builds the real tree f.shape names into f.dir.
func (f *fixture) buildReal(cache string) error {
	if err := os.MkdirAll(f.dir, 0o755); err != nil {
		return err
	}
	var err error
	switch f.shape.Name {
	case "goroot":
		err = f.buildGoroot()
	case "node_modules":
		err = f.buildNodeApp(cache)
	default:
		err = f.buildKubernetes()
	}
	if err != nil {
		return err
	}
	// Everything the tree holds, tracked or not, as one commit that
	// resetReal puts back; then packed, with the same baseline as the
	// synthetic trees (keepPacks).
	tree, err := runQuiet(f.dir, append(slices.Clone(f.env), f.fullIndex()...), nil, "sh", "-c", "git add -A && git write-tree")
	if err != nil {
		return err
	}
	commit, err := f.git(nil, "commit-tree", strings.TrimSpace(string(tree)), "-m", "everything the tree holds")
	if err != nil {
		return err
	}
	for _, args := range [][]string{{"update-ref", "refs/bench/full", strings.TrimSpace(string(commit))}, {"gc", "-q"}} {
		if _, err := f.git(nil, args...); err != nil {
			return err
		}
	}
	if err := f.keepPacks(); err != nil {
		return err
	}
	return writeFile(filepath.Join(f.dir, ".git", "bench-ready"), []byte(f.shape.key()+"\n"))
}

// initRepo makes f.dir a repository that never runs gc behind the
// benchmark's back.
func (f *fixture) initRepo() error {
	for _, args := range [][]string{{"init", "-q"}, {"config", "gc.auto", "0"}} {
		if _, err := f.git(nil, args...); err != nil {
			return err
		}
	}
	return nil
}

func (f *fixture) commitAll(msg string) error {
	for _, args := range [][]string{{"add", "-A"}, {"commit", "-q", "--allow-empty", "-m", msg}} {
		if _, err := f.git(nil, args...); err != nil {
			return err
		}
	}
	return nil
}

func (f *fixture) buildGoroot() error {
	out, err := runQuiet(f.dir, f.env, nil, "go", "env", "GOROOT", "GOVERSION")
	if err != nil {
		return fmt.Errorf("go env GOROOT: %w (the goroot tree copies the Go toolchain on PATH)", err)
	}
	lines := strings.Fields(string(out))
	if len(lines) != 2 {
		return fmt.Errorf("go env printed %q", out)
	}
	if _, err := runQuiet(f.dir, f.env, nil, "cp", "-a", lines[0]+"/.", f.dir); err != nil {
		return err
	}
	if err := f.initRepo(); err != nil {
		return err
	}
	return f.commitAll("the GOROOT of " + lines[1])
}

func (f *fixture) buildNodeApp(cache string) error {
	err := fs.WalkDir(nodeApp, "testdata/node-app", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := nodeApp.ReadFile(p)
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(p, "testdata/node-app/")
		if rel == "gitignore" { // kept without its dot, so it ignores nothing here
			rel = ".gitignore"
		}
		return writeFile(filepath.Join(f.dir, rel), b)
	})
	if err != nil {
		return err
	}
	if err := f.initRepo(); err != nil {
		return err
	}
	if err := f.commitAll("a Next.js application"); err != nil {
		return err
	}
	env := append(slices.Clone(f.env), "npm_config_cache="+filepath.Join(cache, "npm"), "npm_config_update_notifier=false")
	if _, err := runQuiet(f.dir, env, nil, "npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"); err != nil {
		return fmt.Errorf("npm ci: %w (the node_modules tree needs npm and its registry)", err)
	}
	return nil
}

func (f *fixture) buildKubernetes() error {
	if err := f.initRepo(); err != nil {
		return err
	}
	for _, v := range kubernetesVersions {
		// Outside the tree, whose go.mod would make it the main module.
		out, err := runQuiet(filepath.Dir(f.dir), append(slices.Clone(f.env), "GOFLAGS=-modcacherw", "GOTOOLCHAIN=local"),
			nil, "go", "mod", "download", "-json", "k8s.io/kubernetes@"+v)
		if err != nil {
			return fmt.Errorf("go mod download: %w (the kubernetes tree needs the Go module proxy)", err)
		}
		var mod struct{ Zip, Error string }
		if err := json.Unmarshal(out, &mod); err != nil || mod.Zip == "" {
			return fmt.Errorf("go mod download printed %q", out)
		}
		if err := f.replaceWithZip(mod.Zip, "k8s.io/kubernetes@"+v+"/"); err != nil {
			return err
		}
		if err := f.commitAll("kubernetes " + v); err != nil {
			return err
		}
	}
	return nil
}

// replaceWithZip makes the work tree the module zip's files.
func (f *fixture) replaceWithZip(zipPath, prefix string) error {
	entries, err := os.ReadDir(f.dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Name() != ".git" {
			if err := os.RemoveAll(filepath.Join(f.dir, e.Name())); err != nil {
				return err
			}
		}
	}
	zr, err := zip.OpenReader(zipPath)
	if err != nil {
		return err
	}
	defer zr.Close()
	for _, zf := range zr.File {
		rel, ok := strings.CutPrefix(zf.Name, prefix)
		if !ok || strings.HasSuffix(zf.Name, "/") {
			continue
		}
		r, err := zf.Open()
		if err != nil {
			return err
		}
		var b bytes.Buffer
		_, err = io.Copy(&b, r)
		r.Close()
		if err != nil {
			return err
		}
		if err := writeFile(filepath.Join(f.dir, filepath.FromSlash(rel)), b.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

// maxPoolSize leaves out of the edited files the few large ones (the
// compiled binaries node_modules holds): an agent edits source files.
const maxPoolSize = 1 << 20

// loadPool lists a real tree's files that are not ignored, for the cases
// to edit (regular files under maxPoolSize), and counts them all as the
// tree's size.
func (f *fixture) loadPool() error {
	if !f.shape.Real {
		return nil
	}
	out, err := f.git(nil, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	if err != nil {
		return err
	}
	all := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	f.shape.Files = len(all)
	f.pool = f.pool[:0]
	for _, p := range all {
		st, err := os.Lstat(filepath.Join(f.dir, p))
		if err == nil && st.Mode().IsRegular() && st.Size() < maxPoolSize && p != ".gitignore" && !quoted(p) {
			f.pool = append(f.pool, p)
		}
	}
	slices.Sort(f.pool)
	return nil
}

// quoted reports whether git quotes p in its output (core.quotePath):
// such files are left out of the edits, since OpenCode's revert reads
// git ls-tree's quoted names as absent from the snapshot and deletes the
// file (GOROOT's test/fixedbugs/issue27836.dir/Þfoo.go).
func quoted(p string) bool {
	return strings.ContainsFunc(p, func(r rune) bool { return r < 0x20 || r >= 0x7f || r == '"' || r == '\\' })
}

// resetReal puts back everything refs/bench/full holds and removes what
// it does not (but what is ignored), then the real index.
func (f *fixture) resetReal() error {
	env := append(slices.Clone(f.env), f.fullIndex()...)
	for _, args := range [][]string{{"read-tree", "--reset", "-u", "refs/bench/full"}, {"clean", "-fdq"}} {
		if _, err := runQuiet(f.dir, env, nil, "git", args...); err != nil {
			return err
		}
	}
	if _, err := f.git(nil, "reset", "-q", "--hard"); err != nil {
		return err
	}
	// The pool again: the one read when the fixture opened holds what a
	// run killed before its reset left (its new files).
	return f.loadPool()
}

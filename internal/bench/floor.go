package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// The floor of a capture typed as `git checkpoint` that scans the tree
// with git (one that finds a change: a capture of an unchanged tree may
// need no scan, the stat check's) is what no build of git-checkpoint can
// take away: git starting it (git's own start, its configuration, the
// search of PATH, a fork and an exec), the start of a Go program, and
// one scan of the tree, which costs a `git status`. The first two are
// measured by the start case: git running a Go program that does
// nothing, as it runs git-checkpoint. A target below 1 + start/status
// cannot be met on the machine that measured it, and the report says so
// beside the verdict (docs/speed.md, "The floor of a capture").

// nothingName is the program the start case runs, as `git bench-nothing`.
const nothingName = "git-bench-nothing"

// buildNothing builds the program that does nothing into dir/nothing-bin,
// as make build builds git-checkpoint (without cgo), and returns that
// directory, which benchEnv puts on PATH.
func buildNothing(dir string, environ []string) (string, error) {
	src := filepath.Join(dir, "nothing-src")
	bin := filepath.Join(dir, "nothing-bin")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return "", err
	}
	files := map[string]string{
		"go.mod":  "module nothing\n\ngo 1.21\n",
		"main.go": "// Command git-bench-nothing does nothing: the benchmark's floor.\npackage main\n\nfunc main() {}\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(src, name), []byte(text), 0o644); err != nil {
			return "", err
		}
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	cmd := exec.Command(goTool, "build", "-o", filepath.Join(bin, nothingName), ".")
	cmd.Dir = src
	cmd.Env = append(append([]string(nil), environ...), "CGO_ENABLED=0", "GOWORK=off", "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build of the floor's program: %v\n%s", err, clip(string(out)))
	}
	return bin, nil
}

// startCase times `git bench-nothing`, the program that does nothing.
func (b *bed) startCase() benchCase {
	none := func(int) error { return nil }
	return benchCase{key: "start", label: "git running a Go program that does nothing", setup: none, teardown: none,
		run: func(int) (sample, error) { return b.timed(nil, nil, "git", "bench-nothing") }}
}

// floor is the least a capture that scans the whole tree with git, typed
// as `git checkpoint`, can cost as a ratio to git status: 0 when the
// start case did not run.
func (r *result) floor() float64 {
	if len(r.samples["start"]) == 0 {
		return 0
	}
	return 1 + ratio(r.median("start"), r.median("status"))
}

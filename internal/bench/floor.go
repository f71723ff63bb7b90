package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// The floors: of a capture, and of a rewind (putCase).
//
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

// putName is the program the put case runs, as `git bench-put FILE...`:
// each file's bytes written to a new file beside it, one syncfs, each
// renamed over its file, one more syncfs for the renames (one flush for
// every directory: on a quiet disk cheaper than the rewind's syncs of
// its own files and directories, which do not wait for other programs'
// writes). That is the least any rewind of those files that survives a
// power loss writes (DESIGN 5.3), without reading a blob, a plan, a
// safety checkpoint or a check after.
const putName = "git-bench-put"

const putSource = `// Command git-bench-put puts files back durably: the floor of a rewind.
package main

import (
	"fmt"
	"os"
	"syscall"
)

func main() {
	if err := put(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "bench-put:", err)
		os.Exit(1)
	}
}

// sysSyncfs is syncfs(2), which package syscall does not name.
const sysSyncfs = %d

func put(files []string) error {
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.WriteFile(p+".put", b, 0o644); err != nil {
			return err
		}
	}
	top, err := os.Open(".")
	if err != nil {
		return err
	}
	defer top.Close()
	if _, _, errno := syscall.Syscall(sysSyncfs, top.Fd(), 0, 0); errno != 0 {
		return errno
	}
	for _, p := range files {
		if err := os.Rename(p+".put", p); err != nil {
			return err
		}
	}
	if _, _, errno := syscall.Syscall(sysSyncfs, top.Fd(), 0, 0); errno != 0 {
		return errno
	}
	return nil
}
`

// buildNothing builds the floors' programs, the one that does nothing
// and the one that puts files back, into dir/nothing-bin, as make build
// builds git-checkpoint (without cgo), and returns that directory, which
// benchEnv puts on PATH.
func buildNothing(dir string, environ []string) (string, error) {
	bin := filepath.Join(dir, "nothing-bin")
	programs := map[string]string{
		nothingName: "// Command git-bench-nothing does nothing: the benchmark's floor.\npackage main\n\nfunc main() {}\n",
	}
	// The put program syncs as the rewind does, with syncfs(2): its
	// number here, where it is known (elsewhere no floor of a rewind).
	if nr, ok := map[string]int{"amd64": 306, "arm64": 267}[runtime.GOARCH]; ok && runtime.GOOS == "linux" {
		programs[putName] = fmt.Sprintf(putSource, nr)
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	for name, main := range programs {
		src := filepath.Join(dir, name+"-src")
		if err := os.MkdirAll(src, 0o755); err != nil {
			return "", err
		}
		files := map[string]string{"go.mod": "module " + name + "\n\ngo 1.21\n", "main.go": main}
		for file, text := range files {
			if err := os.WriteFile(filepath.Join(src, file), []byte(text), 0o644); err != nil {
				return "", err
			}
		}
		cmd := exec.Command(goTool, "build", "-o", filepath.Join(bin, name), ".")
		cmd.Dir = src
		cmd.Env = append(append([]string(nil), environ...), "CGO_ENABLED=0", "GOWORK=off", "GOFLAGS=")
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("go build of the floor's program %s: %v\n%s", name, err, clip(string(out)))
		}
	}
	return bin, nil
}

// startCase times `git bench-nothing`, the program that does nothing.
func (b *bed) startCase() benchCase {
	none := func(int) error { return nil }
	return benchCase{key: "start", label: "git running a Go program that does nothing", setup: none, teardown: none,
		run: func(int) (sample, error) { return b.timed(nil, nil, "git", "bench-nothing") }}
}

// putCase times `git bench-put` of 100 files edited as the rewind case
// edits them: the floor of that rewind beside one scan.
func (b *bed) putCase() benchCase {
	return benchCase{key: "put", label: "git running a Go program that puts 100 files back durably",
		setup: func(r int) error {
			for _, edit := range b.edit(r, b.spread(r, 100, 7)) {
				if err := edit(); err != nil {
					return err
				}
			}
			return nil
		},
		run: func(int) (sample, error) {
			return b.timed(nil, nil, "git", append([]string{"bench-put"}, b.edited...)...)
		},
		teardown: b.restore}
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

// rewindFloor is the least a rewind of 100 files that scans the whole
// tree with git can cost as a ratio to git status: one scan, and the put
// case (git starting a Go program that puts the files back durably); 0
// when the put case did not run.
func (r *result) rewindFloor() float64 {
	if len(r.samples["put"]) == 0 {
		return 0
	}
	return 1 + ratio(r.median("put"), r.median("status"))
}

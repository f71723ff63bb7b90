package bench

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// stepback, from github.com/Archerkattri/stepback (Python, MIT),
// src/stepback/engine.py (Engine): stepback run watches the tree and, in
// its one long-lived process, calls Engine.checkpoint on each settled
// burst of edits: _snapshot_tree (git add -A . into a new, temporary
// index, git write-tree), and when the tree differs from the last
// checkpoint's, commit-tree, update-ref, a diff --name-status for the
// summary and its state file, under a lock. stepback rewind is a process
// of its own: Engine() (three git rev-parse), plan_restore (another
// snapshot, git diff --stat and --name-only), then rewind: a snapshot for
// the redo stack with commit-tree and update-ref, and _restore_tree (a
// third snapshot, ls-tree of both trees, a diff, read-tree into a
// temporary index, checkout-index of the changed files into a staging
// directory, and a rename of each into place).
//
// Its command line needs typer and its watcher watchdog, packages from
// PyPI; the engine needs only the standard library. So the benchmark
// drives the engine as the command line does, from stepbackScript, with
// the system's python3 and stepback's source from -stepback: capture
// through one long-lived process (as stepback run), timed from the
// request to the answer; rewind as a new process each time (as stepback
// rewind --yes), timed whole. The import of typer is not counted. One
// change to what stepback runs: its refs go under refs/bench-stepback/,
// not refs/checkpoints/, which are git-checkpoint's (the same git
// processes, one name changed).

// stepbackCommit is the commit of stepback's source the benchmark was
// written against.
const stepbackCommit = "4fce17db02a42c7cec63d0ea6f0f32422aca538e"

const stepbackScript = `
import sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from stepback.engine import Engine
from stepback.adapters import detect_adapters

def engine():
    cwd = Path.cwd()
    eng = Engine(cwd, adapters=detect_adapters(cwd))
    git = eng.repo.git
    def moved(*args, **kw):
        args = [a.replace("refs/checkpoints/", "refs/bench-stepback/", 1) if isinstance(a, str) and a.startswith("refs/checkpoints/") else a for a in args]
        return git(*args, **kw)
    eng.repo.git = moved
    return eng

if sys.argv[2] == "serve":
    eng = engine()
    print("ready", flush=True)
    for line in sys.stdin:
        cp = eng.checkpoint()
        print("ok", cp.id if cp else "unchanged", flush=True)
else:
    eng = engine()
    cp = eng.state.latest()
    plan = eng.plan_restore(cp.tree)
    if not plan.is_noop:
        eng.rewind(cp)
    print("ok", cp.id)
`

// stepbackSource returns the directory to import stepback from (dir/src),
// or why it cannot run here.
func stepbackSource(dir string) (string, error) {
	src := filepath.Join(dir, "src")
	if _, err := os.Stat(filepath.Join(src, "stepback", "engine.py")); err != nil {
		return "", fmt.Errorf("its source is not in %s (git clone https://github.com/Archerkattri/stepback %s; measured at commit %.12s)", dir, dir, stepbackCommit)
	}
	out, err := exec.Command("python3", "-c", "import sys; sys.path.insert(0, sys.argv[1]); import stepback.engine; print(sys.version_info >= (3, 11))", src).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "True" {
		return "", fmt.Errorf("python3 cannot import its engine (it needs Python 3.11): %v %s", err, clip(string(out)))
	}
	return src, nil
}

// pyServer is stepback's long-lived checkpointing process.
type pyServer struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func (b *bed) stepbackServer() (*pyServer, error) {
	if b.rv.server != nil {
		return b.rv.server, nil
	}
	cmd := exec.Command("python3", "-c", stepbackScript, b.rv.stepback, "serve")
	cmd.Dir, cmd.Env, cmd.Stderr = b.fx.dir, b.env, os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &pyServer{cmd: cmd, in: in, out: bufio.NewReader(out)}
	if line, err := p.out.ReadString('\n'); err != nil || line != "ready\n" {
		p.close()
		return nil, fmt.Errorf("stepback did not start: %q %v", line, err)
	}
	b.rv.server = p
	return p, nil
}

func (p *pyServer) close() {
	p.in.Close()
	p.cmd.Wait()
}

// stepbackCapture is one Engine.checkpoint in the long-lived process.
func (b *bed) stepbackCapture() (sample, string, error) {
	p, err := b.stepbackServer()
	if err != nil {
		return sample{}, "", err
	}
	start := time.Now()
	if _, err := io.WriteString(p.in, "checkpoint\n"); err != nil {
		return sample{}, "", err
	}
	line, err := p.out.ReadString('\n')
	s := sample{dur: time.Since(start)}
	if err != nil || !strings.HasPrefix(line, "ok ") {
		return s, "", fmt.Errorf("stepback's checkpoint answered %q: %v", line, err)
	}
	return s, strings.TrimSpace(line[3:]), nil
}

// stepbackRestore is stepback rewind --yes to the latest checkpoint.
func (b *bed) stepbackRestore(string) (sample, error) {
	return b.timed(nil, nil, "python3", "-c", stepbackScript, b.rv.stepback, "rewind")
}

package bench

import (
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"
)

// diskLimit is the most a per-tool checkpoint of a one-file edit may add
// under .git before gc: what it stores must grow with the change, not with
// the tree.
const diskLimit = 16 << 10

// usage is what a directory takes: the blocks du counts, and the bytes of
// its files (what a copy or a pack would hold).
type usage struct{ blocks, bytes int64 }

func (u usage) minus(o usage) usage { return usage{u.blocks - o.blocks, u.bytes - o.bytes} }

func dirUsage(dir string) (usage, error) {
	var u usage
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		var st syscall.Stat_t
		if err := syscall.Lstat(p, &st); err != nil {
			return err
		}
		u.blocks += st.Blocks * 512
		if !d.IsDir() {
			u.bytes += st.Size
		}
		return nil
	})
	return u, err
}

// diskSession is the -disk mode: a long session of n per-tool checkpoints,
// each after a one-file edit (a different file each time, through the
// PostToolUse hook of a Write), on the tree of the given size. It reports
// what .git grew by, per checkpoint, before and after git gc, beside the
// figure git checkpoint status gives, and whether the growth before gc
// stays within diskLimit.
func diskSession(o *options, n, calls int, env []string, stdout io.Writer, logf func(string, ...any)) (bool, error) {
	shape := shapeFor("default", n)
	fx, err := openFixture(o.cache, shape, env, logf)
	if err != nil {
		return false, err
	}
	if err := fx.reset(); err != nil {
		return false, err
	}
	// What earlier runs left must go first: their loose objects would
	// leave with the gc below and be counted as a gain. A repack of what
	// is reachable drops them. (What this session writes is new content
	// whatever earlier sessions stored: see bed.run.)
	for _, args := range [][]string{{"repack", "-a", "-d", "-q"}, {"prune", "--expire=now"}} {
		if _, err := fx.git(nil, args...); err != nil {
			return false, err
		}
	}
	b := newBed(fx, env, o.cache, o.tool)
	if err := b.sync(0); err != nil { // the session's first, full checkpoint
		return false, err
	}
	// Its objects (the untracked files', thousands at 100,000 files) are
	// packed before the session: left loose, the session's first pack
	// (checkpoint.packEvery) would take them in and count their blocks
	// as the session's gain.
	if _, err := fx.git(nil, "repack", "-d", "-q"); err != nil {
		return false, err
	}
	gitDir := filepath.Join(fx.dir, ".git")
	before, err := dirUsage(gitDir)
	if err != nil {
		return false, err
	}
	start := time.Now()
	for k := range calls {
		for _, e := range b.edit(k, b.pick(k, 1, 7919)) {
			if err := e(); err != nil {
				return false, err
			}
		}
		if _, err := b.toolCapture(k); err != nil {
			return false, err
		}
		b.edited = b.edited[:0]
	}
	logf("%d files: %d per-tool checkpoints in %s", n, calls, time.Since(start).Round(time.Second))
	if err := b.checkSession(calls); err != nil {
		return false, err
	}
	after, err := dirUsage(gitDir)
	if err != nil {
		return false, err
	}
	status, err := runQuiet(fx.dir, env, nil, "git", "checkpoint", "status")
	if err != nil {
		return false, err
	}
	held := regexp.MustCompile(`checkpoints +\d+, ([^\n]*) held`).FindSubmatch(status)
	// gc as a user's repository runs it, which has no .keep: it packs
	// the session's blobs as deltas of the tree's. What it writes is the
	// fixture's baseline from then on (keepPacks), or the next reset
	// would drop the one pack that holds the tree.
	if err := fx.unkeepPacks(); err != nil {
		return false, err
	}
	if _, err := fx.git(nil, "gc", "--quiet", "--prune=now"); err != nil {
		return false, err
	}
	if err := fx.keepPacks(); err != nil {
		return false, err
	}
	gced, err := dirUsage(gitDir)
	if err != nil {
		return false, err
	}
	statusGC, err := runQuiet(fx.dir, env, nil, "git", "checkpoint", "status")
	if err != nil {
		return false, err
	}
	heldGC := regexp.MustCompile(`checkpoints +\d+, ([^\n]*) held`).FindSubmatch(statusGC)
	grew, grewGC := after.minus(before), gced.minus(before)
	per := func(v int64) string { return kib(v / int64(calls)) }
	fmt.Fprintf(stdout, "\n## Disk: %s per-tool checkpoints of one-file edits, %s files\n\n", Thousands(calls), Thousands(n))
	fmt.Fprintf(stdout, "| .git grew by | du (blocks) | per checkpoint | bytes of files | per checkpoint | git checkpoint status |\n|---|---:|---:|---:|---:|---|\n")
	fmt.Fprintf(stdout, "| before gc | %s | %s | %s | %s | %s |\n", kib(grew.blocks), per(grew.blocks), kib(grew.bytes), per(grew.bytes), match(held))
	fmt.Fprintf(stdout, "| after git gc | %s | %s | %s | %s | %s |\n", kib(grewGC.blocks), per(grewGC.blocks), kib(grewGC.bytes), per(grewGC.bytes), match(heldGC))
	fmt.Fprintf(stdout, "\n| target | per checkpoint | limit | |\n|---|---:|---:|---|\n")
	for _, t := range []struct {
		what string
		v    int64
	}{{"disk before gc (du: whole blocks)", grew.blocks}, {"disk before gc (bytes of files)", grew.bytes}} {
		// A goal of the work on speed at every size: shown, not failing
		// the run (see target.goal).
		verdict := "met (goal)"
		if t.v/int64(calls) > diskLimit {
			verdict = "not yet (goal)"
		}
		fmt.Fprintf(stdout, "| %s | %s | <= %s | %s |\n", t.what, per(t.v), kib(diskLimit), verdict)
	}
	return true, fx.reset()
}

// checkSession makes sure every call made its checkpoint: the newest is
// numbered calls+1 (after the first, full one).
func (b *bed) checkSession(calls int) error {
	out, err := runQuiet(b.fx.dir, b.env, nil, "git", "checkpoint", "list")
	if err != nil {
		return err
	}
	want := fmt.Sprintf("k%d ", calls+1)
	if lines := strings.SplitN(string(out), "\n", 3); len(lines) < 2 || !strings.HasPrefix(lines[1], want) {
		return fmt.Errorf("after %d per-tool captures the newest checkpoint is not %s:\n%s", calls, want, clip(string(out)))
	}
	return nil
}

func match(m [][]byte) string {
	if len(m) < 2 {
		return "?"
	}
	return string(m[1])
}

func kib(v int64) string {
	if v >= 10<<20 || v <= -10<<20 {
		return fmt.Sprintf("%.1f MiB", float64(v)/(1<<20))
	}
	return fmt.Sprintf("%.1f KiB", float64(v)/(1<<10))
}

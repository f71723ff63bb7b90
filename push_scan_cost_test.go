package checkpoint_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestPushScanCost measures what the secret scan adds to a push of a
// large tree: SCAN_COST_FILES files of about 1 KiB (10,000 by default),
// each a window of this project's Go sources, and SCAN_COST_CHECKPOINTS
// checkpoints (50), each editing 20 files and adding one. It compares a
// dry run (listing and the scan, no scan cache, no transfer; the best of
// SCAN_COST_RUNS, 3) with a plain `git push` of the same commits to an
// empty file:// remote (the transfer alone, as cheap as a transfer gets),
// for the first push and for a push of one more checkpoint, and times the
// push after each dry run, which finds the files in the scan cache. With
// SCAN_COST_BRANCH the remotes have the branch first, as they would, so
// that what is published and scanned is what the checkpoints add to it.
// SCAN_COST_DIR keeps the repositories there, SCAN_COST_TRACE logs the
// traces. It fails when the push of one more checkpoint scans more than
// what is new (it took 7 s when the remote's checkpoints did not bound
// the scan). It takes a minute at 10,000 files,
// five at 100,000: run it with SCAN_COST=1 (docs/speed.md, "The secret
// scan of a push").
func TestPushScanCost(t *testing.T) {
	if os.Getenv("SCAN_COST") == "" {
		t.Skip("a measurement: SCAN_COST=1 runs it")
	}
	files, cps := envInt("SCAN_COST_FILES", 10000), envInt("SCAN_COST_CHECKPOINTS", 50)
	env := gitEnv(t)
	base := t.TempDir()
	if keep := os.Getenv("SCAN_COST_DIR"); keep != "" {
		base = keep
	}
	dir := filepath.Join(base, "a")
	must(t, 0, base, env, "git", "init", "-q", dir)
	rng := rand.New(rand.NewPCG(43, 43))
	// Contents are windows of this project's own Go sources: code, with
	// the density of words like key, token and secret that code has.
	var lines []string
	for _, dir := range []string{"internal/remote", "internal/cli", "internal/git", "internal/store", "internal/capture"} {
		srcs, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, src := range srcs {
			data, _ := os.ReadFile(src)
			lines = append(lines, strings.Split(string(data), "\n")...)
		}
	}
	// Each text starts with a line of its own, so that every file is
	// content of its own: the sources have about 25,000 windows, and
	// 100,000 files of them would be a quarter as many blobs.
	texts := 0
	text := func() string {
		var b strings.Builder
		texts++
		fmt.Fprintf(&b, "// text %d\n", texts)
		for at := rng.IntN(len(lines)); b.Len() < 1024; at = (at + 1) % len(lines) {
			b.WriteString(lines[at] + "\n")
		}
		return b.String()
	}
	name := func(i int) string {
		return filepath.Join(dir, fmt.Sprintf("d%03d", i%200), fmt.Sprintf("f%05d.txt", i))
	}
	for i := 0; i < files; i++ {
		os.MkdirAll(filepath.Dir(name(i)), 0o755)
		writeFile(t, name(i), text(), 0o644)
	}
	must(t, 0, dir, env, "git", "add", ".")
	must(t, 0, dir, env, "git", "commit", "-q", "-m", "init")
	bare := filepath.Join(base, "remote.git")
	must(t, 0, base, env, "git", "init", "-q", "--bare", bare)
	must(t, 0, dir, env, "git", "remote", "add", "origin", bare)
	// With SCAN_COST_BRANCH the remotes have the branch first, as they
	// would: the push then publishes, and scans, what the checkpoints
	// add to it.
	branch := os.Getenv("SCAN_COST_BRANCH") != ""
	if branch {
		must(t, 0, dir, env, "git", "push", "-q", bare, "HEAD:refs/heads/main")
	}
	for c := 1; c <= cps; c++ {
		for k := 0; k < 20; k++ {
			writeFile(t, name(rng.IntN(files)), text(), 0o644)
		}
		writeFile(t, filepath.Join(dir, "new", fmt.Sprintf("n%03d.txt", c)), text(), 0o644)
		must(t, 0, dir, env, "git", "checkpoint", "-m", strconv.Itoa(c))
	}
	// cost is one command's wall time, the CPU time of its processes
	// (git's and the scanner's included), and the wall time of its scan
	// phase when it traced one.
	type cost struct {
		wall, cpu, scan time.Duration
		files           int // files scanned, not remembered
	}
	timed := func(name string, args ...string) cost {
		t.Helper()
		cmd, stdout, stderr := command(dir, append(env, "GIT_CHECKPOINT_TRACE=1"), name, args...)
		start := time.Now()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		r := finish(t, cmd, stdout, stderr)
		c := cost{wall: time.Since(start), cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
		if r.code != 0 {
			t.Fatalf("%s %s: exit %d\n%s", name, strings.Join(args, " "), r.code, r.stderr)
		}
		if m := regexp.MustCompile(`(?m)^trace: phase scan ([0-9.]+) ms$`).FindStringSubmatch(r.stderr); m != nil {
			ms, _ := strconv.ParseFloat(m[1], 64)
			c.scan = time.Duration(ms * float64(time.Millisecond))
		}
		if m := regexp.MustCompile(`(?m)^trace: scan of [0-9]+ files: [0-9]+ remembered, ([0-9]+) to scan$`).FindStringSubmatch(r.stderr); m != nil {
			c.files, _ = strconv.Atoi(m[1])
		}
		if os.Getenv("SCAN_COST_TRACE") != "" {
			t.Logf("%s %s:\n%s", name, strings.Join(args, " "), r.stderr)
		}
		if m := regexp.MustCompile(`(?m)^trace: scan of .*$`).FindString(r.stderr); m != "" {
			t.Logf("%s %s: %s", name, strings.Join(args, " "), m)
		}
		return c
	}
	// best is the least of runs runs of f, each field on its own: the
	// machine is shared, and what others run only ever adds.
	runs := envInt("SCAN_COST_RUNS", 3)
	best := func(f func(i int) cost) cost {
		var b cost
		for i := 0; i < runs; i++ {
			c := f(i)
			if i == 0 || c.wall < b.wall {
				b.wall = c.wall
			}
			if i == 0 || c.cpu < b.cpu {
				b.cpu = c.cpu
			}
			if i == 0 || c.scan < b.scan {
				b.scan = c.scan
			}
			b.files = max(b.files, c.files)
		}
		return b
	}
	cache := filepath.Join(dir, ".git", "checkpoints", "scan-cache")
	uncached := func(int) cost {
		os.Remove(cache)
		return timed("git", "checkpoint", "push", "--dry-run")
	}
	ms := func(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }
	report := func(what string, dry, push, transfer cost) {
		t.Logf("%s: dry run %s (CPU %s), of which the scan %s; push after it %s; git push alone %s (CPU %s): scan/transfer %.2f",
			what, ms(dry.wall), ms(dry.cpu), ms(dry.scan), ms(push.wall), ms(transfer.wall), ms(transfer.cpu),
			dry.scan.Seconds()/transfer.wall.Seconds())
	}
	// The transfer alone: the same commits, by git push, to an empty
	// remote; the dry run scans what the push would publish, with no
	// scan cache; the push after it finds it all in the cache.
	plain := func(i int) string { return filepath.Join(base, fmt.Sprintf("plain%d.git", i)) }
	transfer := best(func(i int) cost {
		must(t, 0, base, env, "git", "init", "-q", "--bare", plain(i))
		if branch {
			must(t, 0, dir, env, "git", "push", "-q", plain(i), "HEAD:refs/heads/main")
		}
		return timed("git", "push", "-q", plain(i), "refs/checkpoints/main/*:refs/x/*")
	})
	scan := best(uncached)
	push := timed("git", "checkpoint", "push")
	report(fmt.Sprintf("first push of %d files, %d checkpoints", files, cps), scan, push, transfer)
	for k := 0; k < 20; k++ {
		writeFile(t, name(rng.IntN(files)), text(), 0o644)
	}
	must(t, 0, dir, env, "git", "checkpoint", "-m", "one more")
	transfer1 := best(func(i int) cost { return timed("git", "push", "-q", plain(i), "refs/checkpoints/main/*:refs/x/*") })
	scan1 := best(uncached)
	push1 := timed("git", "checkpoint", "push")
	report("push of one more checkpoint", scan1, push1, transfer1)
	if scan1.files > 21 {
		t.Errorf("the dry run of a push of one more checkpoint, of 20 edited files, scanned %d: more than what is new", scan1.files)
	}
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

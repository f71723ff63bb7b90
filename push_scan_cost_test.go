package checkpoint_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestPushScanCost measures what the secret scan adds to a push of a
// large tree: SCAN_COST_FILES files of about 1 KiB (10,000 by default)
// and SCAN_COST_CHECKPOINTS checkpoints (50), each editing 20 files and
// adding one. It compares a dry run (listing, the scan, no transfer)
// with a plain `git push` of the same commits to an empty file://
// remote (the transfer alone, as cheap as a transfer gets), for the
// first push and for a push of one more checkpoint. It fails when the
// push of one more checkpoint scans more than what is new (a dry run
// over a second: it took 7 s when the remote's checkpoints did not
// bound the scan). It takes half a minute: run it with SCAN_COST=1.
func TestPushScanCost(t *testing.T) {
	if os.Getenv("SCAN_COST") == "" {
		t.Skip("a measurement: SCAN_COST=1 runs it")
	}
	files, cps := envInt("SCAN_COST_FILES", 10000), envInt("SCAN_COST_CHECKPOINTS", 50)
	env := gitEnv(t)
	base := t.TempDir()
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
	text := func() string {
		var b strings.Builder
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
	for c := 1; c <= cps; c++ {
		for k := 0; k < 20; k++ {
			writeFile(t, name(rng.IntN(files)), text(), 0o644)
		}
		writeFile(t, filepath.Join(dir, "new", fmt.Sprintf("n%03d.txt", c)), text(), 0o644)
		must(t, 0, dir, env, "git", "checkpoint", "-m", strconv.Itoa(c))
	}
	timed := func(name string, args ...string) time.Duration {
		start := time.Now()
		must(t, 0, dir, env, name, args...)
		return time.Since(start)
	}
	// The transfer alone: the same commits, by git push, to an empty remote.
	plain := filepath.Join(base, "plain.git")
	must(t, 0, base, env, "git", "init", "-q", "--bare", plain)
	transfer := timed("git", "push", "-q", plain, "refs/checkpoints/main/*:refs/x/*")
	if os.Getenv("SCAN_COST_TRACE") != "" {
		r := must(t, 0, dir, append(env, "GIT_CHECKPOINT_TRACE=1"), "git", "checkpoint", "push", "--dry-run")
		t.Logf("%s", r.stderr)
	}
	scan := timed("git", "checkpoint", "push", "--dry-run")
	push := timed("git", "checkpoint", "push")
	t.Logf("first push of %d files, %d checkpoints: dry run (scan) %v, push %v, git push alone %v", files, cps, scan, push, transfer)
	for k := 0; k < 20; k++ {
		writeFile(t, name(rng.IntN(files)), text(), 0o644)
	}
	must(t, 0, dir, env, "git", "checkpoint", "-m", "one more")
	if os.Getenv("SCAN_COST_TRACE") != "" {
		r := must(t, 0, dir, append(env, "GIT_CHECKPOINT_TRACE=1"), "git", "checkpoint", "push", "--dry-run")
		t.Logf("%s", r.stderr)
	}
	scan1 := timed("git", "checkpoint", "push", "--dry-run")
	push1 := timed("git", "checkpoint", "push")
	t.Logf("push of one more checkpoint: dry run (scan) %v, push %v", scan1, push1)
	if scan1 > time.Second {
		t.Errorf("the dry run of a push of one more checkpoint took %v: it scans more than what is new", scan1)
	}
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

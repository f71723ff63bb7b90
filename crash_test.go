package checkpoint_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestRewindKilledAtEachStep kills a rewind of a 3,000-file tree with
// SIGKILL at each step, as a crash or power loss would, and checks the
// promise of DESIGN 2.4 and 6.4: every path is wholly old or wholly new,
// the next rewind refuses with conflict.interrupted_rewind naming the
// safety checkpoint, and `git rewind --undo` restores the tree from before
// the rewind exactly. An --undo killed in turn is finished by the next one.
func TestRewindKilledAtEachStep(t *testing.T) {
	env := gitEnv(t)
	dir := filepath.Join(t.TempDir(), "tree")
	before, after, plan := crashTree(t, env, dir)
	t.Logf("tree: %d paths before the rewind, %d at the checkpoint; plan: %d deletions, %d writes",
		len(before), len(after), plan.deletes, plan.writes)

	// The cases share one tree: each ends with the tree checked to be
	// exactly as before the rewind, which is where the next one starts.
	// "safety" comes first, while no rewind is in the journal.
	steps := []string{"scanned", "safety", "started", "staged",
		"delete-0", "delete-" + strconv.Itoa(plan.deletes/2), "deleted",
		"rename-0", "rename-" + strconv.Itoa(plan.writes/2), "rename-" + strconv.Itoa(plan.writes-1), "renamed",
		"captured", "ended"}
	interrupted := regexp.MustCompile(`^git-rewind: error: a rewind to k1 was interrupted before it finished; the tree before it is safety checkpoint (k[0-9]+)\n`)
	killed := 0
	for _, step := range steps {
		t.Run(step, func(t *testing.T) {
			r := run(t, dir, append(env, "GIT_CHECKPOINT_FAILPOINT="+step+":kill"), "git", "rewind", "k1", "--yes")
			if r.code != 128+9 || !strings.Contains(r.stderr, "died of signal 9") {
				t.Fatalf("the rewind was not killed at %s: exit %d\n%s%s", step, r.code, r.stdout, r.stderr)
			}
			killed++
			now := manifest(t, dir)
			wholly(t, now, before, after)

			switch step {
			case "scanned", "safety":
				// Killed before rewind_started: nothing was written and
				// nothing is pending. Killed after the scan, its pack and
				// state were being written aside: what was left of them
				// misleads no later capture.
				sameTree(t, "the tree after a kill before rewind_started", before, now)
				must(t, 3, dir, env, "git", "rewind", "--undo", "--yes")
				must(t, 0, dir, env, "git", "rewind", "k1", "--dry-run")
				must(t, 0, dir, env, "git", "checkpoint", "doctor")
				must(t, 0, dir, env, "git", "fsck", "--connectivity-only", "--no-dangling")
				return
			case "ended":
				sameTree(t, "the tree after a kill once the rewind ended", after, now)
			default:
				r := must(t, 5, dir, env, "git", "rewind", "k1", "--yes")
				m := interrupted.FindStringSubmatch(r.stderr)
				if m == nil {
					t.Fatalf("the next rewind said:\n%s", r.stderr)
				}
				show := must(t, 0, dir, env, "git", "checkpoint", "show", m[1])
				if !strings.Contains(show.stdout, "reason      pre_rewind\n") {
					t.Fatalf("%s is not a safety checkpoint:\n%s", m[1], show.stdout)
				}
				if left, _ := os.ReadDir(filepath.Join(dir, ".git", "checkpoints", "staging")); len(left) > 0 {
					t.Fatalf("staging files left after the next run: %v", left)
				}
			}
			must(t, 0, dir, env, "git", "rewind", "--undo", "--yes")
			sameTree(t, "the tree after --undo", before, manifest(t, dir))
			must(t, 0, dir, env, "git", "checkpoint", "doctor")
		})
	}

	t.Run("undo-killed", func(t *testing.T) {
		r := run(t, dir, append(env, "GIT_CHECKPOINT_FAILPOINT=rename-"+strconv.Itoa(plan.writes/3)+":kill"), "git", "rewind", "k1", "--yes")
		if r.code != 137 {
			t.Fatalf("the rewind was not killed: exit %d\n%s", r.code, r.stderr)
		}
		killed++
		mixed := manifest(t, dir)
		// The undo writes back what the rewind changed: kill it half way.
		r = run(t, dir, append(env, "GIT_CHECKPOINT_FAILPOINT=delete-1:kill"), "git", "rewind", "--undo", "--yes")
		if r.code != 137 {
			t.Fatalf("the undo was not killed: exit %d\n%s", r.code, r.stderr)
		}
		killed++
		now := manifest(t, dir)
		wholly(t, now, before, after)
		wholly(t, now, mixed, before)
		must(t, 0, dir, env, "git", "rewind", "--undo", "--yes")
		sameTree(t, "the tree after the second --undo", before, manifest(t, dir))
		must(t, 0, dir, env, "git", "checkpoint", "doctor")
	})
	t.Logf("processes killed: %d, at %s, then a rewind and its --undo", killed, strings.Join(steps, ", "))
}

// wholly fails the test unless every path of now is as in old or as in
// new, and every path absent from now is absent from old or from new.
func wholly(t *testing.T, now, old, new map[string]string) {
	t.Helper()
	var bad []string
	for p, v := range now {
		if v != old[p] && v != new[p] {
			bad = append(bad, fmt.Sprintf("%s is %q: neither old %q nor new %q", p, v, old[p], new[p]))
		}
	}
	for _, m := range []map[string]string{old, new} {
		for p := range m {
			if _, ok := now[p]; !ok && old[p] != "" && new[p] != "" {
				bad = append(bad, p+" is missing, though old and new both have it")
			}
		}
	}
	if len(bad) > 0 {
		t.Fatalf("%d paths are neither wholly old nor wholly new:\n%s", len(bad), strings.Join(bad[:min(10, len(bad))], "\n"))
	}
}

type planSize struct{ deletes, writes int }

// crashTree builds a 3,000-file repository at dir with checkpoint k1 of its
// committed state, then changes a tenth of the files, deletes some (a
// whole directory among them), adds 300 and changes modes, and returns the
// manifests after and at k1 and the size of the rewind to k1.
func crashTree(t *testing.T, env []string, dir string) (before, after map[string]string, plan planSize) {
	t.Helper()
	for d := 0; d < 30; d++ {
		for f := 0; f < 100; f++ {
			mode := os.FileMode(0o644)
			if f%50 == 0 {
				mode = 0o755
			}
			writeFile(t, filepath.Join(dir, fmt.Sprintf("d%02d/f%03d.txt", d, f)), fmt.Sprintf("d%02d/f%03d version 1\n", d, f), mode)
		}
	}
	must(t, 0, dir, env, "git", "init", "-q", "-b", "main")
	must(t, 0, dir, env, "git", "add", ".")
	must(t, 0, dir, env, "git", "commit", "-q", "-m", "three thousand files")
	if r := must(t, 0, dir, env, "git", "checkpoint", "-m", "before the agent"); !strings.HasPrefix(r.stdout, "k1 ") {
		t.Fatalf("first checkpoint: %s", r.stdout)
	}
	after = manifest(t, dir)
	for d := 0; d < 29; d++ {
		for f := 0; f < 100; f++ {
			path := filepath.Join(dir, fmt.Sprintf("d%02d/f%03d.txt", d, f))
			switch {
			case f%15 == 7:
				os.Remove(path)
			case f%10 == 0:
				writeFile(t, path, fmt.Sprintf("d%02d/f%03d version 2, longer\n", d, f), 0o644)
			case f%50 == 1:
				os.Chmod(path, 0o755)
			}
		}
	}
	os.RemoveAll(filepath.Join(dir, "d29"))
	for n := 0; n < 300; n++ {
		writeFile(t, filepath.Join(dir, fmt.Sprintf("new%d/g%03d.txt", n/100, n)), fmt.Sprintf("new %d\n", n), 0o644)
	}
	os.Symlink("d00/f001.txt", filepath.Join(dir, "link"))
	before = manifest(t, dir)
	// The plan's numbers, from a dry run: deletions and writes of the
	// rewind to k1.
	r := must(t, 0, dir, env, "git", "rewind", "k1", "--dry-run")
	counts := regexp.MustCompile(`(?m)^(\d+) paths: (.*)$`).FindStringSubmatch(r.stdout)
	if counts == nil {
		t.Fatalf("no summary in the plan:\n%s", r.stdout[max(0, len(r.stdout)-500):])
	}
	for _, part := range strings.Split(counts[2], ", ") {
		n, kind, _ := strings.Cut(part, " ")
		v, _ := strconv.Atoi(n)
		if kind == "delete" {
			plan.deletes += v
		} else {
			plan.writes += v
		}
	}
	if total, _ := strconv.Atoi(counts[1]); total < 800 || plan.deletes < 300 {
		t.Fatalf("the plan is too small to test much: %s", counts[0])
	}
	return before, after, plan
}

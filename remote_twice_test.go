package checkpoint_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestPushSendsNothingTwice: checkpoints are not one another's parents
// (HEAD is their only one), so git alone would send each new checkpoint
// with every file it holds that differs from HEAD, again. A push and a
// fetch must send only the objects the other side lacks: here a file
// changed at k1 and unchanged since is in k2 too, and the second push's
// pack, and the second fetch's, must not hold it. Both sides keep every
// pack they receive (unpackLimit 1), so what was sent can be read there.
func TestPushSendsNothingTwice(t *testing.T) {
	env := gitEnv(t)
	base := t.TempDir()
	bare := filepath.Join(base, "remote.git")
	must(t, 0, base, env, "git", "init", "-q", "--bare", bare)
	must(t, 0, bare, env, "git", "config", "receive.unpackLimit", "1")
	a := newSideAt(t, env, base, bare)
	b := newSide(t, "file://"+bare, "b")
	b.git(t, 0, "config", "fetch.unpackLimit", "1")

	writeFile(t, filepath.Join(a.dir, "early.txt"), "sent with k1 only\n", 0o644)
	a.git(t, 0, "checkpoint", "-m", "one")
	early := strings.TrimSpace(a.git(t, 0, "rev-parse", "refs/checkpoints/main/1:early.txt").stdout)
	a.git(t, 0, "checkpoint", "push")
	b.git(t, 0, "checkpoint", "fetch")

	writeFile(t, filepath.Join(a.dir, "late.txt"), "new at k2\n", 0o644)
	a.git(t, 0, "checkpoint", "-m", "two")
	late := strings.TrimSpace(a.git(t, 0, "rev-parse", "refs/checkpoints/main/2:late.txt").stdout)
	remotePacks := packs(t, bare)
	a.git(t, 0, "checkpoint", "push")
	sent := newObjects(t, env, bare, remotePacks)
	if !slices.Contains(sent, late) || slices.Contains(sent, early) {
		t.Errorf("the second push sent %d objects, late.txt's blob among them: %v, early.txt's (sent before): %v",
			len(sent), slices.Contains(sent, late), slices.Contains(sent, early))
	}

	gitDir := filepath.Join(b.dir, ".git")
	localPacks := packs(t, gitDir)
	b.git(t, 0, "checkpoint", "fetch")
	got := newObjects(t, env, gitDir, localPacks)
	if !slices.Contains(got, late) || slices.Contains(got, early) {
		t.Errorf("the second fetch got %d objects, late.txt's blob among them: %v, early.txt's (fetched before): %v",
			len(got), slices.Contains(got, late), slices.Contains(got, early))
	}
}

// packs lists the pack indexes of a git directory.
func packs(t *testing.T, gitDir string) []string {
	t.Helper()
	idx, err := filepath.Glob(filepath.Join(gitDir, "objects", "pack", "*.idx"))
	if err != nil {
		t.Fatal(err)
	}
	return idx
}

// newObjects lists the objects of the packs of gitDir that are not in
// before: what one transfer brought.
func newObjects(t *testing.T, env []string, gitDir string, before []string) []string {
	t.Helper()
	var out []string
	for _, idx := range packs(t, gitDir) {
		if slices.Contains(before, idx) {
			continue
		}
		f, err := os.Open(idx)
		if err != nil {
			t.Fatal(err)
		}
		cmd, stdout, stderr := command(gitDir, env, "git", "show-index")
		cmd.Stdin = f
		if err := cmd.Run(); err != nil {
			t.Fatalf("git show-index: %v\n%s", err, stderr)
		}
		f.Close()
		for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
			if fields := strings.Fields(line); len(fields) >= 2 {
				out = append(out, fields[1])
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("no new pack in %s", gitDir)
	}
	return out
}

package checkpoint_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRewindLeadingSymlinkSwap pauses a rewind after its files are staged
// and before they are renamed into place, swaps a directory on their way
// for a symlink to a directory outside the tree, and lets it go on: nothing
// is written or deleted through the symlink, the paths below it are left
// (symlink_in_the_way) and the result says the tree is not exact.
func TestRewindLeadingSymlinkSwap(t *testing.T) {
	env := gitEnv(t)
	root := t.TempDir()
	dir, outside := filepath.Join(root, "tree"), filepath.Join(root, "outside")
	writeFile(t, filepath.Join(dir, "dir/a.txt"), "a\n", 0o644)
	writeFile(t, filepath.Join(dir, "dir/b.txt"), "b\n", 0o644)
	writeFile(t, filepath.Join(dir, "top.txt"), "top\n", 0o644)
	must(t, 0, dir, env, "git", "init", "-q", "-b", "main")
	must(t, 0, dir, env, "git", "checkpoint", "-m", "start")
	writeFile(t, filepath.Join(dir, "dir/a.txt"), "agent's a\n", 0o644)
	os.Remove(filepath.Join(dir, "dir/b.txt"))
	writeFile(t, filepath.Join(dir, "dir/c.txt"), "agent's c\n", 0o644)
	writeFile(t, filepath.Join(dir, "top.txt"), "agent's top\n", 0o644)
	// What the symlink will point at: files with the names the rewind
	// writes and deletes.
	writeFile(t, filepath.Join(outside, "a.txt"), "outside a\n", 0o644)
	writeFile(t, filepath.Join(outside, "c.txt"), "outside c\n", 0o644)
	outsideBefore := manifest(t, outside)

	pause := filepath.Join(root, "paused")
	cmd, stdout, stderr := command(dir, append(env, "GIT_CHECKPOINT_FAILPOINT=staged:pause="+pause), "git", "rewind", "k1", "--yes")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFile(t, pause)
	if err := os.Rename(filepath.Join(dir, "dir"), filepath.Join(root, "moved")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "dir")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(pause); err != nil {
		t.Fatal(err)
	}
	r := finish(t, cmd, stdout, stderr)

	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{
		"warning: the tree does not match the checkpoint exactly",
		"left as they are:\n",
		"  symlink_in_the_way dir/a.txt\n",
		"  symlink_in_the_way dir/b.txt\n",
		"  symlink_in_the_way dir/c.txt\n",
		"  modify top.txt\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the rewind's output lacks %q:\n%s", want, r.stdout)
		}
	}
	sameTree(t, "the directory the symlink points at", outsideBefore, manifest(t, outside))
	if target, err := os.Readlink(filepath.Join(dir, "dir")); err != nil || target != outside {
		t.Errorf("the symlink was changed: %q, %v", target, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "top.txt")); string(b) != "top\n" {
		t.Errorf("top.txt, which had no symlink on its way, was not restored: %q", b)
	}
}

// waitFile waits until a failpoint's pause file exists: the process is
// then waiting at its step until the file is removed.
func waitFile(t *testing.T, path string) {
	t.Helper()
	for i := 0; i < 3000; i++ {
		if _, err := os.Lstat(path); err == nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("the rewind never paused (%s)", path)
}

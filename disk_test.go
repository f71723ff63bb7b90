package checkpoint_test

import (
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/scripttest"
)

// smallDisk mounts a tmpfs of size bytes at a new directory and unmounts
// it when the test ends. It needs root; elsewhere the test is skipped.
func smallDisk(t *testing.T, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small filesystem needs root")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v: %s", err, out)
	}
	// Registered after TempDir's removal, so it runs before it.
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// filler takes a filesystem's free space in 16 KiB files, so that a test
// can give back as much of it as a step needs.
type filler struct {
	dir   string
	files []string
}

// fill writes files into dir until the filesystem is full.
func fill(t *testing.T, dir string) *filler {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	f := &filler{dir: dir}
	chunk := make([]byte, 16<<10)
	for i := 0; ; i++ {
		p := filepath.Join(dir, fmt.Sprintf("fill-%d", i))
		err := os.WriteFile(p, chunk, 0o644)
		f.files = append(f.files, p)
		if errors.Is(err, syscall.ENOSPC) {
			return f
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// free gives back n of the filler's files (all of them when n < 0).
func (f *filler) free(t *testing.T, n int) {
	t.Helper()
	for n != 0 && len(f.files) > 0 {
		last := f.files[len(f.files)-1]
		if err := os.Remove(last); err != nil {
			t.Fatal(err)
		}
		f.files = f.files[:len(f.files)-1]
		n--
	}
}

// random returns n bytes that do not compress.
func random(t *testing.T, n int) string {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// storeBytes is every file of the store a capture keeps (the state
// directory but for the hooks' own log and health record and the lock's
// note of its holder, and the checkpoint refs), for comparing byte for
// byte.
func storeBytes(t *testing.T, env []string, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	state := filepath.Join(dir, ".git", "checkpoints")
	err := filepath.WalkDir(state, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(state, p)
		// The log and health record a hook writes; the lock; the empty
		// mark a capture that began writing leaves until its sync
		// (git.Written), which a failed one keeps for the next.
		if rel == "hook.log" || rel == "hook-health.json" || rel == "lock" || rel == "unsynced" {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[rel] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	out["refs"] = must(t, 0, dir, env, "git", "for-each-ref", "refs/checkpoints").stdout
	return out
}

func sameBytes(t *testing.T, what string, want, got map[string]string) {
	t.Helper()
	for name, b := range want {
		if got[name] != b {
			t.Errorf("%s: %s changed (%d bytes, now %d)", what, name, len(b), len(got[name]))
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s: %s appeared", what, name)
		}
	}
}

// hook runs Claude Code's hook for event in dir.
func hook(t *testing.T, env []string, dir, event string) result {
	t.Helper()
	return runInput(t, dir, env, `{"session_id": "s1", "transcript_path": "", "cwd": "`+dir+`", "hook_event_name": "`+event+`"}`,
		"git", "checkpoint", "hook", "claude")
}

// everyCheckpointRestores checks that each checkpoint still holds what it
// held when it was taken: its tree, as `git ls-tree -r` lists it.
func everyCheckpointRestores(t *testing.T, env []string, dir string, trees map[string]string) {
	t.Helper()
	for id, want := range trees {
		if got := must(t, 0, dir, env, "git", "ls-tree", "-r", "refs/checkpoints/main/"+strings.TrimPrefix(id, "k")).stdout; got != want {
			t.Errorf("checkpoint %s changed:\n%s\nwant:\n%s", id, got, want)
		}
	}
}

// TestFullDisk runs captures, hooks and rewinds in a repository on a
// filesystem that runs out of space. A capture that cannot write fails
// saying the disk is full and what to do, and leaves the store (state
// directory and refs) byte for byte as it was; a hook exits 0 and says
// nothing, and status shows its failure; a rewind that cannot stage its
// files writes nothing to the tree; one that fails while renaming puts
// the tree back. Once space is freed, capture, rewind and doctor work,
// and every checkpoint holds what it held.
func TestFullDisk(t *testing.T) {
	env := gitEnv(t, "CLAUDE_PROJECT_DIR=")
	mnt := smallDisk(t, "4m")
	dir := filepath.Join(mnt, "tree")
	writeFile(t, filepath.Join(dir, "a.txt"), "a\n", 0o644)
	writeFile(t, filepath.Join(dir, "big.bin"), random(t, 400<<10), 0o644)
	must(t, 0, dir, env, "git", "init", "-q", "-b", "main")
	must(t, 0, dir, env, "git", "add", "a.txt")
	must(t, 0, dir, env, "git", "commit", "-q", "-m", "init")
	must(t, 0, dir, env, "git", "checkpoint", "-m", "with big.bin")
	os.Remove(filepath.Join(dir, "big.bin"))
	writeFile(t, filepath.Join(dir, "a.txt"), "a, then b\n", 0o644)
	must(t, 0, dir, env, "git", "checkpoint", "-m", "without")
	trees := map[string]string{}
	for _, id := range []string{"k1", "k2"} {
		trees[id] = must(t, 0, dir, env, "git", "ls-tree", "-r", "refs/checkpoints/main/"+id[1:]).stdout
	}
	k2 := manifest(t, dir)

	// A new file that does not fit.
	writeFile(t, filepath.Join(dir, "new.bin"), random(t, 300<<10), 0o644)
	disk := fill(t, filepath.Join(mnt, "fill"))
	filled := len(disk.files) * 16
	// Room for a log line and the health record, none for the new file.
	disk.free(t, 2)
	before := storeBytes(t, env, dir)
	var injected int

	t.Run("capture", func(t *testing.T) {
		r := must(t, 1, dir, env, "git", "checkpoint")
		injected++
		if !strings.HasPrefix(r.stderr, "git-checkpoint: error: the disk is full: ") ||
			!strings.Contains(r.stderr, "\nhint: free some space on the filesystem") {
			t.Errorf("the capture said:\n%s", r.stderr)
		}
		if r.stdout != "" {
			t.Errorf("stdout: %s", r.stdout)
		}
		sameBytes(t, "after a capture on a full disk", before, storeBytes(t, env, dir))
		r = must(t, 1, dir, env, "git", "checkpoint", "--json")
		if !strings.Contains(r.stdout, `"code": "failed.no_space"`) {
			t.Errorf("--json: %s", r.stdout)
		}
	})

	t.Run("hook", func(t *testing.T) {
		// With no room even for its log, and again with a little.
		for _, room := range []int{0, 4} {
			disk.free(t, room)
			r := hook(t, env, dir, "Stop")
			injected++
			if r.code != 0 || r.stdout != "" || r.stderr != "" {
				t.Fatalf("the hook did not fail open: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			sameBytes(t, "after a hook on a full disk", before, storeBytes(t, env, dir))
		}
		status := must(t, 0, dir, env, "git", "checkpoint", "status").stdout
		if !strings.Contains(status, "2 hook calls took no checkpoint") || !strings.Contains(status, "no checkpoint: the disk is full: ") {
			t.Errorf("status does not show the hook's failure:\n%s", status)
		}
		if !strings.Contains(status, "store FAIL   store: the filesystem of ") {
			t.Errorf("status does not say the disk is all but full:\n%s", status)
		}
		if doc := must(t, 1, dir, env, "git", "checkpoint", "doctor").stdout; !strings.Contains(doc, "KiB free: captures and rewinds will fail") {
			t.Errorf("doctor does not say the disk is all but full:\n%s", doc)
		}
	})

	t.Run("rewind-staging", func(t *testing.T) {
		// The safety checkpoint fits, big.bin's 400 KiB do not.
		os.Remove(filepath.Join(dir, "new.bin"))
		tree := manifest(t, dir)
		r := must(t, 1, dir, env, "git", "rewind", "k1", "--yes")
		injected++
		if !strings.HasPrefix(r.stderr, "git-rewind: error: the disk is full: the rewind stopped before it changed anything: ") ||
			!strings.Contains(r.stderr, "\nhint: free some space on the filesystem") {
			t.Errorf("the rewind said:\n%s", r.stderr)
		}
		sameTree(t, "the tree after a rewind that could not stage", tree, manifest(t, dir))
		// The staging directory goes to a removal of its own, which may
		// still run when the command returns.
		if left, err := scripttest.WaitEmpty(filepath.Join(dir, ".git", "checkpoints", "staging"), time.Minute); err != nil || len(left) > 0 {
			t.Errorf("staging files left after a minute: %v %v", left, err)
		}
		must(t, 0, dir, env, "git", "rewind", "k1", "--dry-run")
	})

	t.Run("rewind-renaming", func(t *testing.T) {
		disk.free(t, -1)
		writeFile(t, filepath.Join(dir, "c.txt"), "c\n", 0o644)
		tree := manifest(t, dir)
		r := must(t, 1, dir, append(env, "GIT_CHECKPOINT_FAILPOINT=rename-1:enospc"), "git", "rewind", "k1", "--yes")
		injected++
		if !strings.Contains(r.stderr, "error: the rewind failed and the tree was put back as it was: ") ||
			!strings.Contains(r.stderr, "no space left on device") || !strings.Contains(r.stderr, "\nhint: free some space on the filesystem") {
			t.Errorf("the rewind said:\n%s", r.stderr)
		}
		sameTree(t, "the tree after a rewind that failed renaming", tree, manifest(t, dir))
		os.Remove(filepath.Join(dir, "c.txt"))
	})

	t.Run("freed", func(t *testing.T) {
		disk.free(t, -1)
		if r := must(t, 0, dir, env, "git", "checkpoint"); !strings.HasPrefix(r.stdout, "k") {
			t.Errorf("the capture after freeing space: %s", r.stdout)
		}
		if r := hook(t, env, dir, "Stop"); r.code != 0 || r.stdout != "" || r.stderr != "" {
			t.Fatalf("the hook after freeing space: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		must(t, 0, dir, env, "git", "checkpoint", "doctor")
		everyCheckpointRestores(t, env, dir, trees)
		must(t, 0, dir, env, "git", "rewind", "k2", "--yes")
		sameTree(t, "the tree after a rewind to k2", k2, manifest(t, dir))
		must(t, 0, dir, env, "git", "rewind", "k1", "--yes")
		if b, err := os.ReadFile(filepath.Join(dir, "big.bin")); err != nil || len(b) != 400<<10 {
			t.Errorf("big.bin after a rewind to k1: %d bytes, %v", len(b), err)
		}
		must(t, 0, dir, env, "git", "checkpoint", "doctor")
	})
	t.Logf("failures: %d (full disk: capture, hook twice, staging; ENOSPC injected at rename-1), the disk filled with %d KiB", injected, filled)
}

// TestReadOnlyFilesystem: with the repository's filesystem remounted
// read-only, a capture and a rewind fail saying so before anything
// changed, and a hook exits 0 and prints nothing (its failure cannot be
// recorded: the store is on that filesystem too).
func TestReadOnlyFilesystem(t *testing.T) {
	env := gitEnv(t, "CLAUDE_PROJECT_DIR=")
	mnt := smallDisk(t, "4m")
	dir := filepath.Join(mnt, "tree")
	writeFile(t, filepath.Join(dir, "a.txt"), "a\n", 0o644)
	must(t, 0, dir, env, "git", "init", "-q", "-b", "main")
	must(t, 0, dir, env, "git", "checkpoint", "-m", "start")
	writeFile(t, filepath.Join(dir, "a.txt"), "changed\n", 0o644)
	remount := func(mode string) {
		if out, err := exec.Command("mount", "-o", "remount,"+mode, mnt).CombinedOutput(); err != nil {
			t.Fatalf("remount %s: %v: %s", mode, err, out)
		}
	}
	remount("ro")
	defer remount("rw")
	tree := manifest(t, dir)
	for _, args := range [][]string{{"checkpoint"}, {"rewind", "k1", "--yes"}} {
		r := must(t, 1, dir, env, "git", args...)
		if !strings.Contains(r.stderr, ": error: the filesystem is read-only: ") || !strings.Contains(r.stderr, "\nhint: remount it read-write") {
			t.Errorf("git %s said:\n%s", strings.Join(args, " "), r.stderr)
		}
	}
	if r := hook(t, env, dir, "Stop"); r.code != 0 || r.stdout != "" || r.stderr != "" {
		t.Errorf("the hook did not fail open: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// The hook could not record its failure: status and doctor say why.
	if st := must(t, 0, dir, env, "git", "checkpoint", "status").stdout; !strings.Contains(st, "store FAIL   store: ") || !strings.Contains(st, "is on a read-only filesystem") {
		t.Errorf("status does not say the store is read-only:\n%s", st)
	}
	if doc := must(t, 1, dir, env, "git", "checkpoint", "doctor").stdout; !strings.Contains(doc, "fix: remount it read-write") {
		t.Errorf("doctor does not say the store is read-only:\n%s", doc)
	}
	sameTree(t, "the tree on a read-only filesystem", tree, manifest(t, dir))
	remount("rw")
	must(t, 0, dir, env, "git", "rewind", "k1", "--yes")
	must(t, 0, dir, env, "git", "checkpoint", "doctor")
}

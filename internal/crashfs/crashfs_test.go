//go:build linux

package crashfs_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/crashfs"
)

func TestMain(m *testing.M) {
	crashfs.Main()
	os.Exit(m.Run())
}

// mount mounts a forgetful filesystem over an empty directory, or skips
// saying why it cannot.
func mount(t *testing.T) *crashfs.FS {
	t.Helper()
	if err := crashfs.Available(); err != nil {
		t.Skip(err)
	}
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	live, dir := filepath.Join(tmp, "live"), filepath.Join(tmp, "mnt")
	for _, d := range []string{live, dir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	c, err := crashfs.Mount(live, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Unmount() })
	return c
}

// sh runs script in the mount through c, so its syncfs calls count.
func sh(t *testing.T, c *crashfs.FS, script string) error {
	t.Helper()
	cmd := exec.Command("sh", "-ec", script)
	cmd.Dir = c.Dir
	out, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = out, out
	err = c.Run(cmd)
	if err != nil {
		b, _ := os.ReadFile(out.Name())
		t.Logf("%s: %v\n%s", script, err, b)
	}
	return err
}

func crash(t *testing.T, c *crashfs.FS) {
	t.Helper()
	if err := c.Crash(); err != nil {
		t.Fatal(err)
	}
}

// content is the file's bytes, or "(none)" when it does not exist.
func content(t *testing.T, c *crashfs.FS, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(c.Dir, name))
	if errors.Is(err, os.ErrNotExist) {
		return "(none)"
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func want(t *testing.T, c *crashfs.FS, name, w string) {
	t.Helper()
	if got := content(t, c, name); got != w {
		t.Errorf("%s after the crash: %q, want %q", name, got, w)
	}
}

// syncDir fsyncs a directory of the mount, as durable.SyncDir does.
func syncDir(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
}

func writeSynced(t *testing.T, path, data string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(data); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func TestNothingSyncedNothingKept(t *testing.T) {
	c := mount(t)
	if err := os.WriteFile(filepath.Join(c.Dir, "a"), []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(c.Dir, "d"), 0o755)
	crash(t, c)
	want(t, c, "a", "(none)")
	if _, err := os.Stat(filepath.Join(c.Dir, "d")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a directory made and never synced is there after the crash: %v", err)
	}
}

func TestDataNeedItsFileSynced(t *testing.T) {
	c := mount(t)
	// Its name synced, its data not: the file is there, empty.
	os.WriteFile(filepath.Join(c.Dir, "a"), []byte("data\n"), 0o644)
	syncDir(t, c.Dir)
	// Both synced: kept.
	writeSynced(t, filepath.Join(c.Dir, "b"), "kept\n")
	syncDir(t, c.Dir)
	// Data synced, name not: gone.
	writeSynced(t, filepath.Join(c.Dir, "c"), "unnamed\n")
	crash(t, c)
	want(t, c, "a", "")
	want(t, c, "b", "kept\n")
	want(t, c, "c", "(none)")

	// A later unsynced write to a kept file is lost; a synced one kept.
	os.WriteFile(filepath.Join(c.Dir, "b"), []byte("changed\n"), 0o644)
	writeSynced(t, filepath.Join(c.Dir, "a"), "synced\n")
	crash(t, c)
	want(t, c, "b", "kept\n")
	want(t, c, "a", "synced\n")
}

func TestRenameNeedsItsDirectorySynced(t *testing.T) {
	c := mount(t)
	writeSynced(t, filepath.Join(c.Dir, "f"), "old\n")
	os.Mkdir(filepath.Join(c.Dir, "d"), 0o755)
	syncDir(t, c.Dir)
	writeSynced(t, filepath.Join(c.Dir, "d", "tmp"), "new\n")
	syncDir(t, filepath.Join(c.Dir, "d"))
	if err := os.Rename(filepath.Join(c.Dir, "d", "tmp"), filepath.Join(c.Dir, "f")); err != nil {
		t.Fatal(err)
	}
	crash(t, c)
	want(t, c, "f", "old\n")
	want(t, c, "d/tmp", "new\n")

	// Synced: the rename stays, and the new name has the data its
	// file's sync made durable under the old one.
	os.Rename(filepath.Join(c.Dir, "d", "tmp"), filepath.Join(c.Dir, "f"))
	syncDir(t, c.Dir)
	crash(t, c)
	want(t, c, "f", "new\n")
	want(t, c, "d/tmp", "new\n") // d was not synced: its entry is still there
	// Hard links share the data (git links a loose object into place).
	os.Link(filepath.Join(c.Dir, "f"), filepath.Join(c.Dir, "g"))
	os.Remove(filepath.Join(c.Dir, "d", "tmp"))
	syncDir(t, c.Dir)
	syncDir(t, filepath.Join(c.Dir, "d"))
	crash(t, c)
	want(t, c, "g", "new\n")
	want(t, c, "d/tmp", "(none)")
}

func TestSyncfsKeepsEverything(t *testing.T) {
	c := mount(t)
	if err := sh(t, c, "mkdir -p x/y && echo deep > x/y/z && ln -s x/y/z link && sync -f x"); err != nil {
		t.Fatal(err)
	}
	if err := sh(t, c, "echo later > x/later && echo changed > x/y/z"); err != nil {
		t.Fatal(err)
	}
	crash(t, c)
	want(t, c, "x/y/z", "deep\n")
	want(t, c, "link", "deep\n")
	want(t, c, "x/later", "(none)")
	if err := sh(t, c, "echo again > x/y/z && sync"); err != nil {
		t.Fatal(err)
	}
	crash(t, c)
	want(t, c, "x/y/z", "again\n")
}

func TestCrashAfterFailsWhatFollows(t *testing.T) {
	c := mount(t)
	script := "echo one > a && sync -f . && echo two > b && sync -f ."
	if err := sh(t, c, script); err != nil {
		t.Fatal(err)
	}
	n := c.Ops()
	if n < 4 {
		t.Fatalf("%d operations counted for %q, want at least 4 (two creates and two syncfs)", n, script)
	}
	crash(t, c)
	os.Remove(filepath.Join(c.Dir, "a"))
	os.Remove(filepath.Join(c.Dir, "b"))
	c.Sync()
	// Crashed after the first syncfs: a is kept, b never was.
	for k := 1; k <= n; k++ {
		c.CrashAfter(k, crashfs.Drop)
		err := sh(t, c, script)
		last := c.Last()
		crash(t, c)
		if k < n && err == nil {
			t.Errorf("crash point %d (after %s): the script did not fail", k, last)
		}
		if last == "syncfs ." && content(t, c, "a") != "one\n" {
			t.Errorf("crash point %d (after the first syncfs): a is %q", k, content(t, c, "a"))
		}
		os.Remove(filepath.Join(c.Dir, "a"))
		os.Remove(filepath.Join(c.Dir, "b"))
		c.Sync()
	}
}

func TestEntriesModeKeepsNamesNotData(t *testing.T) {
	c := mount(t)
	writeSynced(t, filepath.Join(c.Dir, "f"), "old\n")
	syncDir(t, c.Dir)
	c.CrashAfter(1000, crashfs.Entries)
	os.WriteFile(filepath.Join(c.Dir, "tmp"), []byte("new\n"), 0o644)
	os.Rename(filepath.Join(c.Dir, "tmp"), filepath.Join(c.Dir, "f"))
	crash(t, c)
	want(t, c, "f", "") // the zero-length file of a rename before its data
}

func TestFrozenWritesFail(t *testing.T) {
	c := mount(t)
	c.CrashAfter(0, crashfs.Drop)
	err := os.WriteFile(filepath.Join(c.Dir, "a"), []byte("x"), 0o644)
	if !errors.Is(err, syscall.EIO) {
		t.Fatalf("a write past the crash point: %v, want EIO", err)
	}
}

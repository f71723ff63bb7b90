package capture

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestReadEntryRefusesWhatChanged: a file read for its entry must still be
// what the scan saw. A symlink put where a regular file was is not
// followed, a directory is not read, a FIFO does not block, and a file
// gone is reported gone.
func TestReadEntryRefusesWhatChanged(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	write(t, p, "content\n")
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	if body, mode, err := readEntry(p, fi); err != nil || string(body) != "content\n" || mode != "100644" {
		t.Fatalf("readEntry = %q, %s, %v", body, mode, err)
	}
	write(t, filepath.Join(dir, "target"), "elsewhere\n")
	os.Remove(p)
	if err := os.Symlink("target", p); err != nil {
		t.Fatal(err)
	}
	if body, _, err := readEntry(p, fi); err == nil {
		t.Fatalf("a symlink where a file was was followed: read %q", body)
	}
	os.Remove(p)
	if err := os.Mkdir(p, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, _, err := readEntry(p, fi); err == nil {
		t.Fatal("a directory where a file was was read")
	}
	os.Remove(p)
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, _, err := readEntry(p, fi); done <- err }()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a FIFO where a file was was read")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("reading a FIFO where a file was blocked")
	}
	os.Remove(p)
	if _, _, err := readEntry(p, fi); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a file gone: %v, want not exist", err)
	}
	if err := os.Symlink("target", p); err != nil {
		t.Fatal(err)
	}
	link, _ := os.Lstat(p)
	os.Remove(p)
	write(t, p, "a file again\n")
	if _, _, err := readEntry(p, link); err == nil {
		t.Fatal("a file where a symlink was was taken for a symlink")
	}
}

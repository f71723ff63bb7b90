package capture

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/git"
)

// TestLooseObjectsWrittenFast checks that the blob a capture stores is
// compressed at zlib's fastest level whatever the user's configuration
// (here the slowest): the zlib header of a level 1 stream is 78 01.
func TestLooseObjectsWrittenFast(t *testing.T) {
	c, j := testRepo(t, map[string]string{"a.txt": "a\n"})
	ctx := context.Background()
	if _, err := c.Git.Run(ctx, git.Cmd{Args: []string{"config", "core.looseCompression", "9"}}); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(c.Repo.Top, "a.txt"), strings.Repeat("a line of the new content\n", 100))
	rec, err := c.Capture(ctx, j, Options{Reason: "test"})
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.Git.Run(ctx, git.Cmd{Args: []string{"rev-parse", rec.Tree + ":a.txt"}})
	if err != nil {
		t.Fatal(err)
	}
	oid := strings.TrimSpace(string(out))
	body, err := os.ReadFile(filepath.Join(c.Repo.CommonDir, "objects", oid[:2], oid[2:]))
	if err != nil {
		t.Fatalf("the new blob is not a loose object: %v", err)
	}
	if len(body) < 2 || body[0] != 0x78 || body[1] != 0x01 {
		t.Fatalf("the blob's zlib header is % x, want 78 01 (level 1)", body[:min(2, len(body))])
	}
}

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

// TestMayConvertSeesSystemAttributes: the system's attributes file can ask
// for conversions too (a clean filter, text=auto), so where one is, the
// files' bytes are not taken for their blobs; GIT_ATTR_NOSYSTEM, which
// makes git leave it unread, makes the capture leave it too.
func TestMayConvertSeesSystemAttributes(t *testing.T) {
	c, _ := testRepo(t, map[string]string{"a.txt": "a\n"})
	sys := filepath.Join(t.TempDir(), "gitattributes")
	c.sysAttrs = []string{sys}
	c.Git.Env = append(c.Git.Env, "GIT_ATTR_NOSYSTEM=0")
	st := c.loadState()
	if c.mayConvert(st) {
		t.Fatal("conversions may apply with no attributes file anywhere")
	}
	write(t, sys, "* text=auto\n")
	if !c.mayConvert(st) {
		t.Fatal("the system's attributes file was not seen")
	}
	c.Git.Env = append(c.Git.Env, "GIT_ATTR_NOSYSTEM=true")
	if c.mayConvert(st) {
		t.Fatal("the system's attributes file was seen under GIT_ATTR_NOSYSTEM")
	}
}

//go:build linux

// Package crashfs is a filesystem for tests that forgets what was not
// synced: a FUSE mount over a real directory that passes every call
// through, while a model of the disk beneath it takes in a file's data
// only when the file is fsynced (or fdatasynced), a directory's entries
// (names made, renamed, linked, removed) only when the directory is, and
// everything at a syncfs or sync. A crash throws away what is pending and
// presents the last synced state, as a machine losing power would on the
// weakest filesystem POSIX allows (docs/fault-safety.md, "The forgetful
// filesystem").
//
// Crash points are counted: every call that changes the tree or makes
// something durable is one operation, and CrashAfter(k, mode) lets the
// first k through and fails every later one with EIO, so a program
// running on the mount stops changing the disk exactly there. Crash then
// applies the mode (Drop: nothing pending reaches the disk; Entries: the
// directories' pending entries do, the files' data do not) and mounts
// the durable image again.
//
// FUSE never hears of a syncfs(2) or sync(2) (the kernel sends its
// FUSE_SYNCFS only to virtiofs): a command run through Run has those two
// calls reported to this process by a seccomp filter (user notification)
// before they go on, so they count and make everything durable as on a
// disk. A process started otherwise syncs nothing by syncfs.
package crashfs

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// Mode is what a crash keeps of what was pending.
type Mode int

const (
	// Drop keeps nothing that was not synced: the weakest ordering.
	Drop Mode = iota
	// Entries keeps every directory's entries as they were at the crash,
	// but no file data that was not synced: a file renamed or linked
	// into place unsynced is there, empty (ext4's data=writeback, and the
	// zero-length files of delayed allocation).
	Entries
)

func (m Mode) String() string {
	if m == Entries {
		return "entries"
	}
	return "drop"
}

// FS is one mounted forgetful filesystem.
type FS struct {
	// Dir is the mount point: what programs under test use.
	Dir  string
	live string // the directory the mount passes through to

	mu     sync.Mutex
	img    *image
	ops    int      // operations counted since the mount
	limit  int      // with crash: the operations let through
	crash  bool     // CrashAfter was called
	frozen bool     // the limit was reached: every further change fails
	last   string   // the last operation let through
	log    []string // every operation let through since the mount
	mode   Mode
	srv    *fuse.Server
}

// Available says why crashfs cannot run here (nil when it can): FUSE
// needs /dev/fuse and fusermount3 or fusermount.
func Available() error {
	f, err := os.OpenFile("/dev/fuse", os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("crashfs needs FUSE: %v", err)
	}
	f.Close()
	if _, err := exec.LookPath("fusermount3"); err != nil {
		if _, err := exec.LookPath("fusermount"); err != nil {
			return errors.New("crashfs needs FUSE: neither fusermount3 nor fusermount is on PATH (Debian: apt-get install fuse3)")
		}
	}
	return seccompAvailable()
}

// Mount mounts a forgetful filesystem at dir over live, whose content is
// taken as durable.
func Mount(live, dir string) (*FS, error) {
	c := &FS{Dir: dir, live: live}
	return c, c.mount()
}

func (c *FS) mount() error {
	img, err := newImage(c.live)
	if err != nil {
		return err
	}
	var st syscall.Stat_t
	if err := syscall.Stat(c.live, &st); err != nil {
		return err
	}
	r := &fs.LoopbackRoot{Path: c.live, Dev: uint64(st.Dev)}
	r.NewNode = func(r *fs.LoopbackRoot, _ *fs.Inode, _ string, _ *syscall.Stat_t) fs.InodeEmbedder {
		return &node{LoopbackNode: fs.LoopbackNode{RootData: r}, c: c}
	}
	r.RootNode = r.NewNode(r, nil, "", &st)
	// No kernel caching of names or attributes: a remount after a crash
	// must show the durable image, and nothing is cached between.
	zero := time.Duration(0)
	srv, err := fs.Mount(c.Dir, r.RootNode, &fs.Options{
		EntryTimeout: &zero, AttrTimeout: &zero, NegativeTimeout: &zero,
		MountOptions: fuse.MountOptions{FsName: "crashfs", Name: "crashfs", DisableXAttrs: true},
	})
	if err != nil {
		return fmt.Errorf("crashfs: mounting %s: %w", c.Dir, err)
	}
	c.mu.Lock()
	c.img, c.srv = img, srv
	c.ops, c.limit, c.crash, c.frozen, c.last, c.log = 0, 0, false, false, "", nil
	c.mu.Unlock()
	return nil
}

// Unmount unmounts the filesystem, leaving what was live under the live
// directory (a clean shutdown: nothing is lost).
func (c *FS) Unmount() error {
	var err error
	for i := 0; i < 50; i++ {
		if err = c.srv.Unmount(); err == nil {
			return nil
		}
		time.Sleep(20 * time.Millisecond) // a process just killed still holds a file open
	}
	return fmt.Errorf("crashfs: unmounting %s: %w", c.Dir, err)
}

// Ops is the count of operations so far: run a command once to learn
// how many crash points it has.
func (c *FS) Ops() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ops
}

// Last names the last operation let through, for reports.
func (c *FS) Last() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.last
}

// Log names every operation let through since the mount, in order:
// "write PATH", "rename FROM TO", "fsync PATH", "fsync DIR/", "syncfs
// PATH", "sync", and so on (paths relative to the mount).
func (c *FS) Log() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.log...)
}

// IsSync says whether a Log line makes something durable.
func IsSync(op string) bool {
	return op == "sync" || strings.HasPrefix(op, "fsync ") || strings.HasPrefix(op, "syncfs ")
}

// CrashAfter lets k more operations through, then fails every one after
// them with EIO until Crash, which keeps what mode says.
func (c *FS) CrashAfter(k int, mode Mode) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.limit, c.crash, c.mode, c.frozen = c.ops+k, true, mode, false
}

// Crash unmounts, replaces the live directory by the durable image (the
// pending state dropped as the mode says), and mounts it again. Every
// process using the mount must have ended.
func (c *FS) Crash() error {
	if err := c.Unmount(); err != nil {
		return err
	}
	c.mu.Lock()
	img, mode := c.img, c.mode
	c.mu.Unlock()
	if mode == Entries {
		if err := img.syncTree(c.live, false); err != nil {
			return err
		}
	}
	next := c.live + ".crash"
	if err := os.RemoveAll(next); err != nil {
		return err
	}
	if err := os.Mkdir(next, 0o755); err != nil {
		return err
	}
	if err := img.write(next); err != nil {
		return err
	}
	if err := os.RemoveAll(c.live); err != nil {
		return err
	}
	if err := os.Rename(next, c.live); err != nil {
		return err
	}
	return c.mount()
}

// Sync makes everything durable, as a syncfs of the mount would.
func (c *FS) Sync() error {
	return c.syncAll("sync")
}

// begin counts one operation; with a crash set, it fails the ones past
// the limit. On success the lock is held until the caller's end: the
// operations are serialized, so the count and the image agree.
func (c *FS) begin(what string, args ...any) syscall.Errno {
	c.mu.Lock()
	if c.frozen {
		c.mu.Unlock()
		return syscall.EIO
	}
	if c.crash && c.ops >= c.limit {
		c.frozen = true
		c.mu.Unlock()
		return syscall.EIO
	}
	c.ops++
	c.last = fmt.Sprintf(what, args...)
	c.log = append(c.log, c.last)
	return 0
}

func (c *FS) end() { c.mu.Unlock() }

func (c *FS) syncAll(what string) error {
	if errno := c.begin("%s", what); errno != 0 {
		return errno
	}
	defer c.end()
	return c.img.syncTree(c.live, true)
}

// rel is path as the mount shows it, for reports.
func (c *FS) rel(path string) string {
	r, err := filepath.Rel(c.live, path)
	if err != nil || strings.HasPrefix(r, "..") {
		return path
	}
	return r
}

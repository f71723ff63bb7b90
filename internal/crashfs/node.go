//go:build linux

package crashfs

import (
	"context"
	"path/filepath"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// node is a passthrough node whose changes are counted (and refused
// past a crash point) and whose syncs make its data or entries durable.
type node struct {
	fs.LoopbackNode
	c *FS
}

func (n *node) abs() string { return filepath.Join(n.c.live, n.Path(nil)) }

func (n *node) child(name string) string { return filepath.Join(n.Path(nil), name) }

func (n *node) Create(ctx context.Context, name string, flags, mode uint32, out *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	if errno := n.c.begin("create %s", n.child(name)); errno != 0 {
		return nil, nil, 0, errno
	}
	defer n.c.end()
	return n.LoopbackNode.Create(ctx, name, flags, mode, out)
}

func (n *node) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	if flags&syscall.O_TRUNC != 0 && flags&syscall.O_ACCMODE != syscall.O_RDONLY {
		if errno := n.c.begin("truncate %s", n.Path(nil)); errno != 0 {
			return nil, 0, errno
		}
		defer n.c.end()
	}
	return n.LoopbackNode.Open(ctx, flags)
}

func (n *node) Mkdir(ctx context.Context, name string, mode uint32, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	if errno := n.c.begin("mkdir %s", n.child(name)); errno != 0 {
		return nil, errno
	}
	defer n.c.end()
	return n.LoopbackNode.Mkdir(ctx, name, mode, out)
}

func (n *node) Mknod(ctx context.Context, name string, mode, rdev uint32, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	if errno := n.c.begin("mknod %s", n.child(name)); errno != 0 {
		return nil, errno
	}
	defer n.c.end()
	return n.LoopbackNode.Mknod(ctx, name, mode, rdev, out)
}

func (n *node) Unlink(ctx context.Context, name string) syscall.Errno {
	if errno := n.c.begin("unlink %s", n.child(name)); errno != 0 {
		return errno
	}
	defer n.c.end()
	return n.LoopbackNode.Unlink(ctx, name)
}

func (n *node) Rmdir(ctx context.Context, name string) syscall.Errno {
	if errno := n.c.begin("rmdir %s", n.child(name)); errno != 0 {
		return errno
	}
	defer n.c.end()
	return n.LoopbackNode.Rmdir(ctx, name)
}

func (n *node) Rename(ctx context.Context, name string, newParent fs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	to := filepath.Join(newParent.EmbeddedInode().Path(nil), newName)
	if errno := n.c.begin("rename %s %s", n.child(name), to); errno != 0 {
		return errno
	}
	defer n.c.end()
	return n.LoopbackNode.Rename(ctx, name, newParent, newName, flags)
}

func (n *node) Link(ctx context.Context, target fs.InodeEmbedder, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	if errno := n.c.begin("link %s %s", target.EmbeddedInode().Path(nil), n.child(name)); errno != 0 {
		return nil, errno
	}
	defer n.c.end()
	return n.LoopbackNode.Link(ctx, target, name, out)
}

func (n *node) Symlink(ctx context.Context, target, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	if errno := n.c.begin("symlink %s", n.child(name)); errno != 0 {
		return nil, errno
	}
	defer n.c.end()
	return n.LoopbackNode.Symlink(ctx, target, name, out)
}

func (n *node) Setattr(ctx context.Context, f fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	if errno := n.c.begin("setattr %s", n.Path(nil)); errno != 0 {
		return errno
	}
	defer n.c.end()
	return n.LoopbackNode.Setattr(ctx, f, in, out)
}

func (n *node) Write(ctx context.Context, f fs.FileHandle, data []byte, off int64) (uint32, syscall.Errno) {
	if errno := n.c.begin("write %s", n.Path(nil)); errno != 0 {
		return 0, errno
	}
	defer n.c.end()
	w, ok := f.(fs.FileWriter)
	if !ok {
		return 0, syscall.EBADF
	}
	return w.Write(ctx, data, off)
}

func (n *node) Writev(ctx context.Context, f fs.FileHandle, data [][]byte, off int64) (uint32, syscall.Errno) {
	var all []byte
	for _, b := range data {
		all = append(all, b...)
	}
	return n.Write(ctx, f, all, off)
}

func (n *node) Allocate(ctx context.Context, f fs.FileHandle, off, size uint64, mode uint32) syscall.Errno {
	if errno := n.c.begin("fallocate %s", n.Path(nil)); errno != 0 {
		return errno
	}
	defer n.c.end()
	a, ok := f.(fs.FileAllocater)
	if !ok {
		return syscall.ENOTSUP
	}
	return a.Allocate(ctx, off, size, mode)
}

func (n *node) CopyFileRange(ctx context.Context, fhIn fs.FileHandle, offIn uint64, out *fs.Inode, fhOut fs.FileHandle, offOut, size, flags uint64) (uint32, syscall.Errno) {
	if errno := n.c.begin("copy_file_range %s", out.Path(nil)); errno != 0 {
		return 0, errno
	}
	defer n.c.end()
	return n.LoopbackNode.CopyFileRange(ctx, fhIn, offIn, out, fhOut, offOut, size, flags)
}

// Fsync makes the file's data durable (fsync and fdatasync alike: the
// size an fdatasync keeps is all of the inode a later read needs). Its
// name is not: that is its directory's sync.
func (n *node) Fsync(ctx context.Context, f fs.FileHandle, flags uint32) syscall.Errno {
	if n.IsDir() {
		return n.fsyncDir()
	}
	if errno := n.c.begin("fsync %s", n.Path(nil)); errno != 0 {
		return errno
	}
	defer n.c.end()
	return fs.ToErrno(n.c.img.syncFile(n.abs()))
}

func (n *node) fsyncDir() syscall.Errno {
	if errno := n.c.begin("fsync %s/", n.Path(nil)); errno != 0 {
		return errno
	}
	defer n.c.end()
	return fs.ToErrno(n.c.img.syncDir(n.abs()))
}

func (n *node) OpendirHandle(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	h, fl, errno := n.LoopbackNode.OpendirHandle(ctx, flags)
	if errno != 0 {
		return h, fl, errno
	}
	return &dir{stream: h.(dirStream), n: n}, fl, 0
}

// dirStream is what the loopback's directory handle does.
type dirStream interface {
	fs.FileReaddirenter
	fs.FileReleasedirer
	fs.FileSeekdirer
}

// dir is an open directory whose fsync makes its entries durable.
type dir struct {
	stream dirStream
	n      *node
}

func (d *dir) Readdirent(ctx context.Context) (*fuse.DirEntry, syscall.Errno) {
	return d.stream.Readdirent(ctx)
}

func (d *dir) Releasedir(ctx context.Context, flags uint32) { d.stream.Releasedir(ctx, flags) }

func (d *dir) Seekdir(ctx context.Context, off uint64) syscall.Errno {
	return d.stream.Seekdir(ctx, off)
}

func (d *dir) Fsyncdir(ctx context.Context, flags uint32) syscall.Errno { return d.n.fsyncDir() }

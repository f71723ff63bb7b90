package statcheck

import (
	"bytes"
	"encoding/binary"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/git-checkpoint/git-checkpoint/internal/gitformat"
)

// treeWalk compares a working tree with the entries of an index, for the
// stat check (statcheck.go): one directory at a time, each opened once,
// its entries' files stat'ed through it and its names read with getdents,
// on as many threads as there are cores. Most of a small tree's check is
// system calls, and a file's name looked up in a directory already open is
// the cheaper lookup. What it keeps of each entry is small and allocated
// once (a fresh page of memory is a fault, dear on some machines): its
// name and offset in the index, whose stat data are read where they are.
type treeWalk struct {
	top     string
	index   []byte // the index, mapped
	slots   []slot
	groups  map[string]*dirEntries
	ignored map[string]map[string]bool // directory → names ("name/" for a directory)
	last    *dirEntries
	lastDir []byte

	first   atomic.Pointer[string] // the first difference found
	queue   chan string
	pending sync.WaitGroup
}

// slot is a file expected in a directory: an index entry, with the stat
// data git recorded (at off in the index), or a path a capture took
// without writing it into the index (pend), with its own.
type slot struct {
	name []byte
	off  int32
	pend *Pending
}

// dirEntries are the files expected in one directory, as slots' numbers.
type dirEntries struct {
	slots   []int32
	visited bool
}

// differs says how one file is not as slot s expects it, or "": err is
// its stat's.
func (w *treeWalk) differs(s *slot, st *unix.Stat_t, err error) string {
	switch {
	case s.pend != nil && (err == nil || err == unix.ENOENT):
		key := ""
		if err == nil {
			key = KeyOf(st.Size, syscall.Timespec(st.Mtim), syscall.Timespec(st.Ctim), st.Ino, int64(st.Dev), st.Mode)
		}
		return s.pend.Differs(err == nil, key)
	case s.pend == nil && err == nil && sameStat(gitformat.StatAt(w.index, int(s.off)), st):
		return ""
	}
	return "changed"
}

// counted is how many of g's files, all found as expected, the count of
// a directory's names (checkDir) counts: those on disk, and not under a
// name the scan listed as ignored. A path taken without being written
// into the index (pending) is not in the index, so git lists it as
// ignored when a rule matches it, though the capture took it: its name
// is passed over among the names as among the files, or one new name
// would go unseen in its place.
func (w *treeWalk) counted(g *dirEntries, ignored map[string]bool) int {
	n := 0
	for _, i := range g.slots {
		s := &w.slots[i]
		if s.pend != nil && s.pend.Absent || ignored[string(s.name)] {
			continue
		}
		n++
	}
	return n
}

// maxWalkers bounds the walk's threads: past the cores' number, more wait
// on each other.
const maxWalkers = 4

func newTreeWalk(top string, ignored []string, index []byte) *treeWalk {
	w := &treeWalk{top: top, index: index, slots: make([]slot, 0, gitformat.IndexLen(index)),
		groups: map[string]*dirEntries{}, ignored: map[string]map[string]bool{}}
	for _, p := range ignored {
		dir, name := splitPath(p)
		if trimmed, ok := strings.CutSuffix(p, "/"); ok {
			dir, name = splitPath(trimmed)
			name += "/"
		}
		if w.ignored[dir] == nil {
			w.ignored[dir] = map[string]bool{}
		}
		w.ignored[dir][name] = true
	}
	return w
}

// add files an entry of the walk's index under its directory. Its path
// must stay valid until run returns.
func (w *treeWalk) add(e *gitformat.IndexEntry) {
	dir, name := []byte(nil), e.Path
	if i := bytes.LastIndexByte(e.Path, '/'); i >= 0 {
		dir, name = e.Path[:i], e.Path[i+1:]
	}
	if w.last == nil || !bytes.Equal(dir, w.lastDir) {
		w.last, w.lastDir = w.group(string(dir)), dir
	}
	w.last.slots = append(w.last.slots, int32(len(w.slots)))
	w.slots = append(w.slots, slot{name: name, off: int32(e.Offset)})
}

// group is the directory dir's entries, new if none was added yet.
func (w *treeWalk) group(dir string) *dirEntries {
	g := w.groups[dir]
	if g == nil {
		g = &dirEntries{}
		w.groups[dir] = g
	}
	return g
}

// addPending puts the paths a capture took without writing them into the
// index in place of the index's entries, or beside them.
func (w *treeWalk) addPending(pending map[string]Pending) {
	for path, p := range pending {
		dir, name := splitPath(path)
		g := w.group(dir)
		k := slices.IndexFunc(g.slots, func(i int32) bool { return string(w.slots[i].name) == name })
		if k < 0 {
			g.slots = append(g.slots, int32(len(w.slots)))
			w.slots = append(w.slots, slot{name: []byte(name)})
			k = len(g.slots) - 1
		}
		w.slots[g.slots[k]].pend = &p
	}
}

// run walks the tree: the first difference it found, or "" when every
// file expected and every name matched.
func (w *treeWalk) run() string {
	w.queue = make(chan string, 256)
	var workers sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), maxWalkers) {
		workers.Add(1)
		go func() {
			defer workers.Done()
			buf := make([]byte, 32<<10)
			for rel := range w.queue {
				w.visit(rel, buf)
			}
		}()
	}
	w.pending.Add(1)
	w.queue <- ""
	w.pending.Wait()
	close(w.queue)
	workers.Wait()
	if why := w.first.Load(); why != nil {
		return *why
	}
	// Entries in directories the walk does not read (an ignored one that
	// holds a file git tracks anyway), or no longer can.
	var st unix.Stat_t
	for dir, g := range w.groups {
		if g.visited {
			continue
		}
		for _, i := range g.slots {
			s := &w.slots[i]
			p := w.top + "/" + joinPath(dir, string(s.name))
			if why := w.differs(s, &st, unix.Lstat(p, &st)); why != "" {
				return joinPath(dir, string(s.name)) + " " + why
			}
		}
	}
	return ""
}

// splitPath is a path's directory ("" at the top) and name.
func splitPath(p string) (dir, name string) {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i], p[i+1:]
	}
	return "", p
}

// dirName names a directory in a trace.
func dirName(rel string) string {
	if rel == "" {
		return "the top directory"
	}
	return rel + "/"
}

// joinPath is a path in dir ("" at the top).
func joinPath(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// visit checks one directory, and hands on its subdirectories: to an idle
// thread, or checked here when none is.
func (w *treeWalk) visit(rel string, buf []byte) {
	defer w.pending.Done()
	if w.first.Load() != nil {
		return
	}
	subdirs, why := w.checkDir(rel, buf)
	if why != "" {
		w.first.CompareAndSwap(nil, &why)
		return
	}
	for _, d := range subdirs {
		w.pending.Add(1)
		select {
		case w.queue <- d:
		default:
			w.visit(d, buf)
		}
	}
}

// checkDir compares one directory's entries' files and its names, and
// returns the subdirectories to check, or the first difference.
func (w *treeWalk) checkDir(rel string, buf []byte) (subdirs []string, why string) {
	path := w.top
	if rel != "" {
		path += "/" + rel
	}
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, "cannot open " + dirName(rel)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	g := w.groups[rel]
	if g != nil {
		g.visited = true
		for _, i := range g.slots {
			s := &w.slots[i]
			if why := w.differs(s, &st, unix.Fstatat(fd, string(s.name), &st, unix.AT_SYMLINK_NOFOLLOW)); why != "" {
				return nil, joinPath(rel, string(s.name)) + " " + why
			}
		}
	}
	ignored := w.ignored[rel]
	files := 0
	for {
		n, err := unix.Getdents(fd, buf)
		if err != nil {
			return nil, "cannot read " + dirName(rel)
		}
		if n <= 0 {
			break
		}
		for off := 0; off < n; {
			// struct linux_dirent64: inode, offset, length, type, name.
			reclen := int(binary.NativeEndian.Uint16(buf[off+16:]))
			typ := buf[off+18]
			name := buf[off+19 : off+reclen]
			name = name[:bytes.IndexByte(name, 0)]
			off += reclen
			switch string(name) {
			case ".", "..":
				continue
			case ".git":
				if rel == "" {
					continue
				}
				return nil, "a repository in " + dirName(rel) // git's walk decides
			}
			if typ == unix.DT_UNKNOWN {
				if unix.Fstatat(fd, string(name), &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
					return nil, joinPath(rel, string(name)) + " changed"
				}
				if st.Mode&unix.S_IFMT == unix.S_IFDIR {
					typ = unix.DT_DIR
				}
			}
			if typ == unix.DT_DIR {
				if ignored != nil && ignored[string(name)+"/"] {
					continue
				}
				subdirs = append(subdirs, joinPath(rel, string(name)))
				continue
			}
			if ignored[string(name)] {
				if string(name) == ".gitignore" || string(name) == ".gitattributes" {
					return nil, joinPath(rel, string(name)) + " is ignored" // rules not in the private index
				}
				continue
			}
			files++
		}
	}
	// Every file expected is here (stat'ed above), so names that are not
	// ignored and number them are them.
	if g == nil && files != 0 || g != nil && files != w.counted(g, ignored) {
		return nil, "a new name in " + dirName(rel)
	}
	return subdirs, ""
}

// sameStat reports whether a file's stat data is what git recorded of an
// entry: every field git compares, the change time whatever
// core.trustCTime says, the type, and the owner's executable bit.
func sameStat(s gitformat.Stat, fst *unix.Stat_t) bool {
	mtim, ctim := fst.Mtim, fst.Ctim
	if s.MtimeSec != uint32(mtim.Sec) || s.MtimeNsec != uint32(mtim.Nsec) ||
		s.CtimeSec != uint32(ctim.Sec) || s.CtimeNsec != uint32(ctim.Nsec) ||
		s.Ino != uint32(fst.Ino) || s.UID != fst.Uid || s.GID != fst.Gid || s.Size != uint32(fst.Size) {
		return false
	}
	switch uint32(fst.Mode) & unix.S_IFMT {
	case unix.S_IFREG:
		return s.Mode&0o170000 == 0o100000 && (s.Mode^uint32(fst.Mode))&0o100 == 0
	case unix.S_IFLNK:
		return s.Mode == 0o120000
	}
	return false
}

//go:build linux

package crashfs

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// wrapEnv marks the test binary started as Run's wrapper: it installs
// the seccomp filter on itself, hands its listener to the test over fd 3,
// and executes the command, whose every descendant inherits the filter.
const wrapEnv = "CRASHFS_WRAP"

// dirEnv is the directory the wrapper changes to. A child must never
// start in the mount: Go starts it with vfork, so the test process keeps
// its P until the child executes, and a garbage collection that stops the
// world waits for that P while the child's chdir waits for the FUSE
// server, which runs in the stopped world.
const dirEnv = "CRASHFS_DIR"

// Main runs the wrapper when the test binary was started as one, and
// returns otherwise: a TestMain of a package that calls Run calls it
// first.
func Main() {
	if os.Getenv(wrapEnv) == "" {
		return
	}
	if err := wrap(os.Args[1], os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "crashfs: %v\n", err)
		os.Exit(126)
	}
}

// filter sends syncfs and sync to the listener and lets every other call
// through.
func filter() []unix.SockFilter {
	return []unix.SockFilter{
		{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: 0}, // seccomp_data.nr
		{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, Jt: 2, K: unix.SYS_SYNCFS},
		{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, Jt: 1, K: unix.SYS_SYNC},
		{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ALLOW},
		{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_USER_NOTIF},
	}
}

// install puts the filter on the calling thread and returns its
// listener.
func install() (int, error) {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return -1, fmt.Errorf("no_new_privs: %w", err)
	}
	f := filter()
	prog := unix.SockFprog{Len: uint16(len(f)), Filter: &f[0]}
	fd, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER,
		unix.SECCOMP_FILTER_FLAG_NEW_LISTENER, uintptr(unsafe.Pointer(&prog)))
	if errno != 0 {
		return -1, fmt.Errorf("seccomp user notification: %w", errno)
	}
	return int(fd), nil
}

func wrap(name string, args []string) error {
	path, err := exec.LookPath(name)
	if err != nil {
		return err
	}
	// The filter belongs to this thread, which must be the one that
	// executes the command.
	runtime.LockOSThread()
	fd, err := install()
	if err != nil {
		return err
	}
	if err := unix.Sendmsg(3, []byte{1}, unix.UnixRights(fd), nil, 0); err != nil {
		return fmt.Errorf("handing the listener over: %w", err)
	}
	unix.Close(fd)
	unix.Close(3)
	if d := os.Getenv(dirEnv); d != "" {
		if err := os.Chdir(d); err != nil {
			return err
		}
	}
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, wrapEnv+"=") && !strings.HasPrefix(e, dirEnv+"=") {
			env = append(env, e)
		}
	}
	return unix.Exec(path, args, env)
}

// seccompAvailable says whether a process may install the filter (a
// container may forbid seccomp, or user notification on old kernels).
func seccompAvailable() error {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), wrapEnv+"=1")
	cmd.Args = []string{os.Args[0], "true"}
	listener, err := start(cmd)
	if err != nil {
		return fmt.Errorf("crashfs needs seccomp user notification to see syncfs: %v", err)
	}
	unix.Close(listener)
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("crashfs needs seccomp user notification to see syncfs: %v", err)
	}
	return nil
}

// start starts cmd (the wrapper) and receives its listener.
func start(cmd *exec.Cmd) (int, error) {
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	ours, theirs := os.NewFile(uintptr(pair[0]), "crashfs"), os.NewFile(uintptr(pair[1]), "crashfs-wrapper")
	defer ours.Close()
	cmd.ExtraFiles = []*os.File{theirs}
	err = cmd.Start()
	theirs.Close()
	if err != nil {
		return -1, err
	}
	buf, oob := make([]byte, 1), make([]byte, unix.CmsgSpace(4))
	_, oobn, _, _, err := unix.Recvmsg(int(ours.Fd()), buf, oob, 0)
	if err == nil && oobn == 0 {
		err = errors.New("the wrapper ended without handing its listener over")
	}
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return -1, err
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		return -1, fmt.Errorf("the wrapper's message: %v", err)
	}
	fds, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 1 {
		return -1, fmt.Errorf("the wrapper's listener: %v", err)
	}
	return fds[0], nil
}

// Run runs cmd with its syncfs and sync calls (its descendants' too)
// reported to c, each one an operation that makes everything durable,
// and waits for it. Every command that works in the mount must be run
// through Run, which starts it outside and changes to cmd.Dir after the
// exec (see dirEnv). Processes it left behind in its process group are
// killed when it ends: the tests crash the filesystem next, and nothing
// may use it then.
func (c *FS) Run(cmd *exec.Cmd) error {
	args := append([]string{os.Args[0]}, cmd.Args...)
	cmd.Path, cmd.Args = os.Args[0], args
	cmd.Env = append(cmd.Environ(), wrapEnv+"=1", dirEnv+"="+cmd.Dir)
	cmd.Dir = ""
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	listener, err := start(cmd)
	if err != nil {
		return fmt.Errorf("crashfs: starting %s: %w", args[1], err)
	}
	done := make(chan struct{})
	served := make(chan struct{})
	go func() {
		defer close(served)
		c.serve(listener, done)
	}()
	err = cmd.Wait()
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	close(done)
	<-served
	unix.Close(listener)
	return err
}

// serve answers the listener's notifications until done: a syncfs of a
// file on the mount, or a sync, makes everything durable (or fails with
// EIO past a crash point) and then goes on to the kernel.
func (c *FS) serve(listener int, done <-chan struct{}) {
	for {
		select {
		case <-done:
			return
		default:
		}
		pfd := []unix.PollFd{{Fd: int32(listener), Events: unix.POLLIN}}
		n, err := unix.Poll(pfd, 50)
		if err != nil || n == 0 || pfd[0].Revents&unix.POLLIN == 0 {
			continue
		}
		var req [80]byte // struct seccomp_notif
		if _, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(listener), unix.SECCOMP_IOCTL_NOTIF_RECV, uintptr(unsafe.Pointer(&req[0]))); errno != 0 {
			continue // the caller died meanwhile
		}
		id := binary.NativeEndian.Uint64(req[0:])
		pid := binary.NativeEndian.Uint32(req[8:])
		nr := int32(binary.NativeEndian.Uint32(req[16:]))
		var res error
		switch nr {
		case unix.SYS_SYNC:
			res = c.syncAll("sync")
		case unix.SYS_SYNCFS:
			fd := binary.NativeEndian.Uint64(req[32:])
			path, _ := os.Readlink(filepath.Join("/proc", strconv.Itoa(int(pid)), "fd", strconv.Itoa(int(fd))))
			if path == c.Dir || strings.HasPrefix(path, c.Dir+"/") {
				res = c.syncAll("syncfs " + c.rel(filepath.Join(c.live, strings.TrimPrefix(path, c.Dir))))
			}
		}
		var resp [24]byte // struct seccomp_notif_resp
		binary.NativeEndian.PutUint64(resp[0:], id)
		var errno syscall.Errno
		if errors.As(res, &errno) || res != nil {
			if errno == 0 {
				errno = syscall.EIO
			}
			binary.NativeEndian.PutUint32(resp[16:], uint32(-int32(errno)))
		} else {
			binary.NativeEndian.PutUint32(resp[20:], unix.SECCOMP_USER_NOTIF_FLAG_CONTINUE)
		}
		unix.Syscall(unix.SYS_IOCTL, uintptr(listener), unix.SECCOMP_IOCTL_NOTIF_SEND, uintptr(unsafe.Pointer(&resp[0])))
	}
}

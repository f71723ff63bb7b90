//go:build unix

package picker

import (
	"errors"
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// notifyResize sends on c when the terminal is resized, to draw again.
func notifyResize(c chan<- os.Signal) { signal.Notify(c, syscall.SIGWINCH) }

// readable waits up to timeout for f to have something to read.
func readable(f *os.File, timeout time.Duration) (bool, error) {
	fds := []unix.PollFd{{Fd: int32(f.Fd()), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, int(timeout.Milliseconds()))
	if errors.Is(err, unix.EINTR) {
		return false, nil // a signal (a resize): look again
	}
	return n > 0, err
}

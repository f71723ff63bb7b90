//go:build unix

package picker

import (
	"os"
	"os/signal"
	"syscall"
)

// notifyResize sends on c when the terminal is resized, to draw again.
func notifyResize(c chan<- os.Signal) { signal.Notify(c, syscall.SIGWINCH) }

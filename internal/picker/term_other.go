//go:build !unix

package picker

import (
	"os"
	"time"
)

// notifyResize does nothing where there is no SIGWINCH: the picker reads
// the size again at each key.
func notifyResize(chan<- os.Signal) {}

// readable says f is readable at once where there is no poll: the read
// then waits for a key.
func readable(*os.File, time.Duration) (bool, error) { return true, nil }

//go:build !unix

package picker

import "os"

// notifyResize does nothing where there is no SIGWINCH: the picker reads
// the size again at each key.
func notifyResize(chan<- os.Signal) {}

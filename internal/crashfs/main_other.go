//go:build !linux

package crashfs

// Main returns at once: the forgetful filesystem and its seccomp wrapper
// are Linux's (FUSE through go-fuse, seccomp's user notification), and
// the power-loss test runs only there.
func Main() {}

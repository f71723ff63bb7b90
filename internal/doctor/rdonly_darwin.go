package doctor

import "golang.org/x/sys/unix"

// readOnlyFS reports whether dir is on a filesystem mounted read-only.
func readOnlyFS(dir string) bool {
	var st unix.Statfs_t
	return unix.Statfs(dir, &st) == nil && st.Flags&unix.MNT_RDONLY != 0
}

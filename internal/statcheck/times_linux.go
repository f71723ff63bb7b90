package statcheck

import "syscall"

// Times is a file's modification and change times.
func Times(st *syscall.Stat_t) (mtim, ctim syscall.Timespec) { return st.Mtim, st.Ctim }

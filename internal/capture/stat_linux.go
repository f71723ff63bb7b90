package capture

import "syscall"

// statTimes is a file's modification and change times.
func statTimes(st *syscall.Stat_t) (mtim, ctim syscall.Timespec) { return st.Mtim, st.Ctim }

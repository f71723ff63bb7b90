package git

// YieldNice is the niceness a Cmd.Yield process runs at (or at its
// parent's, when that is nicer already). The case is the scan's two
// halves on two cores (capture's split scan): `git diff` checks the
// tracked files' stat data on up to 20 threads, while `git ls-files
// --others` walks the directories on one, and takes longest. At equal
// priority the scheduler shares the cores among the threads, so the walk
// gets a small part of one core until the diff is done, and then runs
// alone beside an idle core. At 10 (a tenth of the weight per thread) the
// diff's threads together weigh about two ordinary processes: the walk
// keeps a core and the diff has the rest, so both end near the same time.
// 10 and 19 measured the same, both faster than 0 (docs/speed.md, "The
// scan's halves share the cores"). 10 rather than 19 because niceness also counts against other
// programs' processes where the kernel does not group them by session: a
// busy machine slows the scan like two ordinary processes, not starves it
// (docs/decisions.md).
const YieldNice = 10

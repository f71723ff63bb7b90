package git

import (
	"context"
	"io"
	"strings"
	"sync"
)

// A rewind makes two refs on the path every file of it waits for: its
// safety checkpoint's, then the one after it. A `git update-ref` for each
// costs mostly the start of a git process (docs/speed.md, "The rewind's
// commits made ahead"). OpenRefs starts
// one `git update-ref --stdin -z` ahead, while other work goes on, and
// UpdateRef then asks it for each update in a transaction of its own
// ("start", the update, "commit"), returning once git answers that the
// transaction is committed: the ref is then on disk as after a process of
// its own, for the sync that follows. git ends the process on the first
// update it refuses; that update, and every one after it, is made by a
// process of its own as before, which gives the error.

// refSession is a running `git update-ref --stdin -z`.
type refSession struct {
	mu   sync.Mutex
	p    *batchProc
	dead bool // git refused an update, or could not be asked
}

// OpenRefs starts the update-ref that UpdateRef asks until CloseRefs. It
// is started aside of any work aside (Cmd.Older): it reads an object
// only when asked to name it, and the caller asks only for objects it has
// written. A process that cannot start leaves UpdateRef as it was.
func (r *Runner) OpenRefs(ctx context.Context) {
	if r.refs != nil {
		return
	}
	p, err := r.startStream(ctx, []string{"update-ref", "--stdin", "-z"}, true)
	if err != nil {
		return
	}
	r.refs = &refSession{p: p}
}

// CloseRefs ends the process OpenRefs started.
func (r *Runner) CloseRefs() {
	s := r.refs
	if s == nil {
		return
	}
	r.refs = nil
	s.mu.Lock()
	defer s.mu.Unlock()
	s.p.close() // an update it refused was made again, and failed, by a process of its own
}

// update makes u (old is its expected value) in a transaction of the
// session's, and reports whether git committed it. It asks only for what
// needs no option of the whole process: no reflog message, no reflog
// created.
func (s *refSession) update(u RefUpdate, old string) bool {
	if s == nil || u.New == "" || u.Reason != "" || u.CreateReflog ||
		strings.IndexByte(u.Ref, 0) >= 0 || strings.IndexByte(u.New, 0) >= 0 {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dead {
		return false
	}
	var in strings.Builder
	in.WriteString("start\x00")
	if u.NoDeref {
		in.WriteString("option no-deref\x00")
	}
	if u.Create {
		in.WriteString("create " + u.Ref + "\x00" + u.New + "\x00")
	} else {
		in.WriteString("update " + u.Ref + "\x00" + u.New + "\x00" + old + "\x00")
	}
	in.WriteString("commit\x00")
	if _, err := io.WriteString(s.p.in, in.String()); err != nil {
		s.dead = true
		return false
	}
	for _, want := range []string{"start: ok\n", "commit: ok\n"} {
		if line, err := s.p.out.ReadString('\n'); err != nil || line != want {
			s.dead = true
			return false
		}
	}
	return true
}

package git

import "sync"

// Aside runs a command's writes in the background while it goes on with
// work that does not need them: a rewind's scan has its new objects
// packed aside (WritePack), and plans and stages its files from the trees
// it holds (Trees) while they are written, where it waited for git first
// (docs/speed.md, "Waiting hooks in one group, writes aside"). Every git
// process a Runner starts afterwards waits for the work aside to end
// (Settle), but for those that ask only for objects that were in the
// repository before it (Cmd.Older). The store's lock is not let go before
// it ends. A nil *Aside runs nothing aside.
type Aside struct {
	mu   sync.Mutex
	done chan struct{} // closed when the newest work ends; nil when none
	err  error         // the first error of any work
}

// NewAside returns an Aside with nothing running.
func NewAside() *Aside { return &Aside{} }

// Go runs fn in the background, after the work given before it.
func (a *Aside) Go(fn func() error) {
	a.mu.Lock()
	prev, done := a.done, make(chan struct{})
	a.done = done
	a.mu.Unlock()
	go func() {
		defer close(done)
		if prev != nil {
			<-prev
		}
		if err := fn(); err != nil {
			a.mu.Lock()
			if a.err == nil {
				a.err = err
			}
			a.mu.Unlock()
		}
	}()
}

// Settle waits for the work aside and returns the first error any of it
// had, every time it is asked: what came after a failed write cannot
// count on it.
func (a *Aside) Settle() error {
	if a == nil {
		return nil
	}
	if done := a.newest(); done != nil {
		<-done
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.err
}

// Pending reports whether work aside has not ended yet.
func (a *Aside) Pending() bool {
	if a == nil {
		return false
	}
	done := a.newest()
	if done == nil {
		return false
	}
	select {
	case <-done:
		return false
	default:
		return true
	}
}

// newest is the channel the newest work closes when it ends, or nil.
func (a *Aside) newest() chan struct{} {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.done
}

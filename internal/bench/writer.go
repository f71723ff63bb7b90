package bench

import (
	"errors"
	"os"
	"path/filepath"
	"time"
)

// An agent's hooks rarely run on a quiet disk: a build, an `npm install`,
// a test run or a download writes beside them. A syncfs waits for every
// program's writes to the filesystem, an fsync for its own file's; the
// "beside a writer" cases run a capture or a rewind while a diskWriter
// writes to the tree's filesystem, as such a program does.

// writerSpan is how much the writer writes before it writes over its
// file again: enough for the kernel to keep writing it out throughout.
const writerSpan = 512 << 20

// writerLead is how long the writer runs before the timed command, so
// that its dirty pages are what a person's build leaves: the kernel
// starts writing them out in the background once they pass a tenth of
// memory, or after 30 seconds.
const writerLead = 700 * time.Millisecond

// diskWriter writes to one file in the repository's git directory (the
// tree's filesystem, and no path a capture reads) until stopped, never
// syncing.
type diskWriter struct {
	path string
	stop chan struct{}
	done chan error
}

// startWriter starts writing beside the tree at dir, and returns once
// it has been writing for writerLead.
func startWriter(dir string) (*diskWriter, error) {
	w := &diskWriter{path: filepath.Join(dir, ".git", "bench-writer.tmp"), stop: make(chan struct{}), done: make(chan error, 1)}
	f, err := os.Create(w.path)
	if err != nil {
		return nil, err
	}
	go func() {
		buf := make([]byte, 1<<20)
		for i := range buf {
			buf[i] = byte(i * 7)
		}
		var off int64
		for {
			select {
			case <-w.stop:
				w.done <- f.Close()
				return
			default:
			}
			if _, err := f.WriteAt(buf, off); err != nil {
				f.Close()
				w.done <- err
				return
			}
			off = (off + int64(len(buf))) % writerSpan
		}
	}()
	time.Sleep(writerLead)
	return w, nil
}

// Stop ends the writing and removes the file, with its pages not yet
// written out: nothing of it is left for the next case to wait for.
func (w *diskWriter) Stop() error {
	if w == nil {
		return nil
	}
	close(w.stop)
	err := <-w.done
	return errors.Join(err, os.Remove(w.path))
}

// besideWriter is c run while a diskWriter writes: started after c's
// setup, stopped before its teardown.
func (b *bed) besideWriter(c benchCase, key, label string) benchCase {
	var w *diskWriter
	return benchCase{key: key, label: label,
		setup: func(r int) error {
			if err := c.setup(r); err != nil {
				return err
			}
			var err error
			w, err = startWriter(b.fx.dir)
			return err
		},
		run: c.run,
		teardown: func(r int) error {
			err := w.Stop()
			w = nil
			return errors.Join(err, c.teardown(r))
		}}
}

package store

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The queue lets hooks that wait for the lock hand their checkpoint to
// the process that holds it (capture's group captures): a hook that finds
// the lock taken leaves its request in the state directory's queue/
// before it waits (Ask); the holder, before it lets go, claims the
// requests there (Waiting), takes their checkpoints and answers each with
// its id. When the waiting hook gets the lock, its answer is there, or it
// takes its checkpoint itself, as it always did. Nothing is lost when a
// process dies at any point: a request nobody answered is one its hook
// takes itself, and at worst a checkpoint is taken twice, which the
// second finds unchanged.
//
// A request is a file <nanoseconds>-<pid>.req, written whole under
// another name and renamed, so the holder never reads half of one. The
// holder claims it by renaming it to .run (a hook that gives up waiting
// removes its .req, and one of the two renames wins), answers it in .done
// (written and renamed), then removes the .run. Files a dead process left
// are removed once an hour old.

const queueDir = "queue"

// staleQueued is the age from which a claimed request or an answer
// nobody read is left over by a process that died.
const staleQueued = time.Hour

// Ask is a request this process left in the queue.
type Ask struct {
	base string // the request's path without its suffix
}

// Ask leaves payload in the queue, for the lock's holder to take.
func (s *Store) Ask(payload []byte) (*Ask, error) {
	dir := s.Path(queueDir)
	if err := os.MkdirAll(dir, PrivateDir); err != nil {
		return nil, err
	}
	base := filepath.Join(dir, fmt.Sprintf("%019d-%d", time.Now().UnixNano(), os.Getpid()))
	if err := os.WriteFile(base+".tmp", payload, PrivateFile); err != nil {
		os.Remove(base + ".tmp")
		return nil, err
	}
	if err := os.Rename(base+".tmp", base+".req"); err != nil {
		os.Remove(base + ".tmp")
		return nil, err
	}
	return &Ask{base: base}, nil
}

// Answer withdraws the request and returns the answer the holder gave, if
// one did: the id of the checkpoint taken for it. Call it holding the
// lock, which the answering holder held until it had answered.
func (a *Ask) Answer() (string, bool) {
	os.Remove(a.base + ".req")
	b, err := os.ReadFile(a.base + ".done")
	if err != nil {
		return "", false
	}
	os.Remove(a.base + ".done")
	return strings.TrimSpace(string(b)), true
}

// Asked is a request the lock's holder claimed.
type Asked struct {
	Payload []byte
	base    string
}

// Waiting claims the requests in the queue, oldest first. The caller
// holds the lock, and answers or releases each.
func (s *Store) Waiting() []*Asked {
	dir := s.Path(queueDir)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []*Asked
	for _, e := range entries { // sorted by name, so by time
		name := e.Name()
		base := filepath.Join(dir, strings.TrimSuffix(name, filepath.Ext(name)))
		if filepath.Ext(name) != ".req" {
			if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > staleQueued {
				os.Remove(filepath.Join(dir, name))
			}
			continue
		}
		if os.Rename(base+".req", base+".run") != nil {
			continue // its hook gave up waiting
		}
		b, err := os.ReadFile(base + ".run")
		if err != nil {
			os.Remove(base + ".run")
			continue
		}
		out = append(out, &Asked{Payload: b, base: base})
	}
	return out
}

// Answer tells the request's hook the checkpoint taken for it.
func (q *Asked) Answer(id string) {
	if os.WriteFile(q.base+".tmp", []byte(id+"\n"), PrivateFile) == nil {
		os.Rename(q.base+".tmp", q.base+".done")
	}
	os.Remove(q.base + ".run")
}

// Release gives the request back unanswered: its hook takes the
// checkpoint itself.
func (q *Asked) Release() { os.Remove(q.base + ".run") }

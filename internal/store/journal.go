package store

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// Event types in the journal.
const (
	EventCheckpoint    = "checkpoint"
	EventRewindStarted = "rewind_started"
	EventRewindEnded   = "rewind_ended"
	EventPruned        = "pruned"
	EventRebuilt       = "rebuilt"
)

// Event is one line of journal.jsonl. Prev chains each line to the one
// before it (the first 16 hex digits of its SHA-256), so an edited, dropped
// or truncated line is detected rather than silently believed.
type Event struct {
	Type       string    `json:"type"`
	At         time.Time `json:"at"`
	Checkpoint *Record   `json:"checkpoint,omitempty"`
	Rewind     *Rewind   `json:"rewind,omitempty"`
	Pruned     []string  `json:"pruned,omitempty"`
	Rebuilt    *Rebuilt  `json:"rebuilt,omitempty"`
	Prev       string    `json:"prev"`
}

// Rebuilt is the first event of a journal that was rebuilt: why, and where
// the damaged file was kept.
type Rebuilt struct {
	Aside    string   `json:"aside,omitempty"`
	Problems []string `json:"problems"`
}

// Journal is the parsed journal of one working tree.
type Journal struct {
	Events []Event
	// Problems lists what did not parse or did not chain, one line each,
	// for doctor; the events that did parse are still used.
	Problems []string
	// Missing says there was no journal file at all.
	Missing bool
	last    string   // hash of the last line, the next line's Prev
	hashes  []string // hash of each line, by line number - 1
}

// ParseJournal reads journal lines. It never fails: a line that does not
// parse is reported in Problems and skipped, so one bad byte cannot hide
// every checkpoint.
func ParseJournal(data []byte) *Journal {
	j := &Journal{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 64*1024*1024)
	lineNo := 0
	for sc.Scan() {
		lineNo++
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var ev Event
		if err := json.Unmarshal(line, &ev); err != nil || ev.Type == "" {
			j.Problems = append(j.Problems, fmt.Sprintf("line %d does not parse", lineNo))
		} else {
			if ev.Prev != j.last {
				j.Problems = append(j.Problems, fmt.Sprintf("line %d does not follow line %d (edited, removed or reordered lines)", lineNo, lineNo-1))
			}
			if ev.Type == EventCheckpoint && ev.Checkpoint == nil {
				j.Problems = append(j.Problems, fmt.Sprintf("line %d is a checkpoint without a record", lineNo))
			} else {
				j.Events = append(j.Events, ev)
			}
		}
		j.last = lineHash(line)
		for len(j.hashes) < lineNo-1 {
			j.hashes = append(j.hashes, "")
		}
		j.hashes = append(j.hashes, j.last)
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		j.Problems = append(j.Problems, fmt.Sprintf("line %d is cut short (the journal was truncated)", lineNo))
	}
	return j
}

func lineHash(line []byte) string {
	sum := sha256.Sum256(line)
	return hex.EncodeToString(sum[:8])
}

// Checkpoints returns the checkpoints in the order they were taken, without
// the reuse records (those name a checkpoint that is already listed).
func (j *Journal) Checkpoints() []*Record {
	var out []*Record
	for i := range j.Events {
		if r := j.Events[i].Checkpoint; r != nil && !r.Reused {
			out = append(out, r)
		}
	}
	return out
}

// Latest returns the newest checkpoint, or nil.
func (j *Journal) Latest() *Record {
	for i := len(j.Events) - 1; i >= 0; i-- {
		if r := j.Events[i].Checkpoint; r != nil && !r.Reused {
			return r
		}
	}
	return nil
}

// MaxN returns the highest checkpoint number recorded.
func (j *Journal) MaxN() int {
	n := 0
	for _, r := range j.Checkpoints() {
		n = max(n, r.N)
	}
	return n
}

// ByID finds a checkpoint by its k<n> id.
func (j *Journal) ByID(id string) *Record {
	for _, r := range j.Checkpoints() {
		if r.ID == id {
			return r
		}
	}
	return nil
}

// Pruned reports whether the checkpoint with id was pruned.
func (j *Journal) Pruned(id string) bool {
	for _, ev := range j.Events {
		for _, p := range ev.Pruned {
			if p == id {
				return true
			}
		}
	}
	return false
}

// LastRewind returns the newest rewind_started event and whether a
// rewind_ended followed it.
func (j *Journal) LastRewind() (started *Rewind, ended bool) {
	for i := len(j.Events) - 1; i >= 0; i-- {
		switch j.Events[i].Type {
		case EventRewindEnded:
			ended = true
		case EventRewindStarted:
			return j.Events[i].Rewind, ended
		}
	}
	return nil, false
}

// readJournal loads the journal file and checks it against its head file;
// a missing file is an empty journal.
func readJournal(path string) (*Journal, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Journal{Missing: true}, nil
	}
	if err != nil {
		return nil, err
	}
	j := ParseJournal(data)
	if head, err := os.ReadFile(path + headSuffix); err == nil {
		j.checkHead(string(head))
	}
	return j, nil
}

// headSuffix names the file beside the journal that holds the number and
// hash of the last line written. The chain inside the journal catches an
// edited or removed line with lines after it; only something outside the
// journal can catch the loss or the edit of its last lines.
const headSuffix = ".head"

// checkHead compares the journal with its head file, "N HASH". The head
// is written after the journal line it names, without an fsync, so a
// journal that goes further than its head is fine; one that ends before
// it, or holds another line there, was cut short or edited.
func (j *Journal) checkHead(head string) {
	var n int
	var hash string
	if _, err := fmt.Sscanf(head, "%d %s", &n, &hash); err != nil || n <= 0 {
		return
	}
	switch {
	case n > len(j.hashes):
		j.Problems = append(j.Problems, fmt.Sprintf("the journal ends at line %d but was written up to line %d (truncated)", len(j.hashes), n))
	case j.hashes[n-1] != hash:
		j.Problems = append(j.Problems, fmt.Sprintf("line %d is not the line written there (edited)", n))
	}
}

// appendJournal writes ev as one line, chained to the last, and fsyncs it
// before returning: a checkpoint is not reported until its record is on
// disk.
func appendJournal(path string, j *Journal, ev Event) error {
	ev.Prev = j.last
	line, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	j.Events = append(j.Events, ev)
	j.last = lineHash(line)
	j.hashes = append(j.hashes, j.last)
	j.Missing = false
	return writeHead(path, j)
}

// writeHead records the journal's last line in its head file.
func writeHead(path string, j *Journal) error {
	tmp := path + headSuffix + ".tmp"
	if err := os.WriteFile(tmp, fmt.Appendf(nil, "%d %s\n", len(j.hashes), j.last), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path+headSuffix)
}

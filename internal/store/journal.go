package store

import (
	"time"
)

// The journal is the record of a working tree's checkpoints and rewinds:
// journal.jsonl, one JSON event a line, each line chained to the one
// before it. This file holds its events and the Journal type; reading is
// journal_read.go, the questions asked of it journal_query.go, writing
// journal_write.go.
//
// The files beside it, and what guards each:
//
//	file                           holds                                guarded by
//	journal.jsonl                  the events, in order                 each line's prev: the hash of the line before
//	journal.jsonl.head             "N HASH": the last line written      the journal's own lines (checkHead)
//	journal.jsonl.summary          the answers a hook asks, to line N   CRC-32 of those bytes, the last line's hash (summary.go)
//	journal.jsonl.corrupt-<time>   a damaged journal, kept aside        nothing: the rebuilt event names it (repair.go)
//
// The chain catches an edited or removed line with lines after it; the
// head catches the loss or edit of the last lines, which no later line
// vouches for; the summary is a cache, believed only while its bytes
// check, else the journal is read whole. A compacted journal starts with
// an event standing for the lines it dropped (compact.go).

// Event types in the journal.
const (
	EventCheckpoint    = "checkpoint"
	EventRewindStarted = "rewind_started"
	EventRewindEnded   = "rewind_ended"
	EventPruned        = "pruned"
	EventRebuilt       = "rebuilt"
	EventCompacted     = "compacted"
)

// Event is one line of journal.jsonl. Prev chains each line to the one
// before it (the first 16 hex digits of its SHA-256), so an edited, dropped
// or truncated line is detected rather than silently believed.
type Event struct {
	Type       string     `json:"type"`
	At         time.Time  `json:"at"`
	Checkpoint *Record    `json:"checkpoint,omitempty"`
	Rewind     *Rewind    `json:"rewind,omitempty"`
	Pruned     []string   `json:"pruned,omitempty"`
	Rebuilt    *Rebuilt   `json:"rebuilt,omitempty"`
	Compacted  *Compacted `json:"compacted,omitempty"`
	Prev       string     `json:"prev"` // last: see glance.go
}

// Rebuilt is the first event of a journal that was rebuilt: why, and where
// the damaged file was kept.
type Rebuilt struct {
	Aside    string   `json:"aside,omitempty"`
	Problems []string `json:"problems"`
}

// Journal is the parsed journal of one working tree.
//
// A hook reads the journal on every tool call, and it grows by a line per
// call: decoding every line as JSON would soon cost a hook more than its
// scan (docs/speed.md, "Where the time goes"). So a line is decoded only
// when something needs its event. Reading checks every line's place in the
// chain from its bytes alone (the hash, and the prev field at its end) and
// notes the few fields a hook needs (type, number, turn, session, reuse)
// by a cheap look at the bytes; the newest lines are decoded at once. A
// journal that is not perfectly whole is decoded entirely, as before, so
// that every problem is reported as it always was (see ParseJournal).
//
// Even that look grows with every line, so a journal with a summary
// (summary.go) is read from it: only the lines after the summary are
// looked at, and what a hook asks (the newest checkpoint, the highest
// number and turn, a session's turn) is answered from them and the
// summary. A question about every line (Event, All, Records, Problems,
// ...) first reads the older lines too (whole).
type Journal struct {
	// problems lists what did not parse or did not chain, one line each,
	// among the lines read so far (see Problems).
	problems []string
	// Missing says there was no journal file at all.
	Missing bool
	last    string   // hash of the last line, the next line's Prev
	hashes  []string // hash of each line, by line number - base - 1
	lines   []*line  // the events, in order, from line base + 1
	// base is the number of lines before hashes[0] and lines[0]: those
	// the summary stands for, while they are not read (file is set).
	base int
	// sum is the summary the journal was read with: what its first
	// sum.Lines lines (lines[:sumAt] once they are read) hold.
	sum   *summary
	sumAt int
	// path is the journal file's, while the lines the summary stands
	// for are not read (whole reads them), and head its head file as
	// read; tail is the file from the summary's last line on, as read.
	path string
	head []byte
	tail []byte
	// summarized is the number of lines the newest summary read or
	// written stands for: a writer writes a new one summaryEvery lines
	// after it.
	summarized int
	all        []Event // All's result, while it has as many events as lines
	// first is ByID's index: by number, the line of the first checkpoint
	// record that is not a reuse, among the first indexed lines.
	first   map[int]int
	indexed int
	// staged counts the newest lines that are in memory only
	// (stageJournal), not yet written.
	staged int
}

// line is one event of the journal: its bytes, what a look at them found,
// and the event once decoded.
type line struct {
	raw []byte
	ev  *Event
	// Found without decoding (or from ev): the type and, for a
	// checkpoint, its number, turn, session, agent and whether it is a
	// reuse.
	typ     string
	n       int
	turn    string
	session string
	agent   string
	reused  bool
}

// decodedTail is how many of the newest lines are decoded when the
// journal is read: the last, the only line no later line's chain covers
// (see ParseJournal). Every other line is decoded when it is asked for:
// decoding even the newest 64 on every read was a noticeable part of a
// hook's time before its scan (docs/speed.md, "A scan begun early").
const decodedTail = 1

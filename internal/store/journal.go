package store

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/durable"
)

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
// call: decoding every line as JSON costs about 30 µs, a third of a second
// at 10,000 lines. So a line is decoded only when something needs its
// event. Reading checks every line's place in the chain from its bytes
// alone (the hash, and the prev field at its end) and notes the few fields
// a hook needs (type, number, turn, session, reuse) by a cheap look at the
// bytes; the newest lines are decoded at once. A journal that is not
// perfectly whole is decoded entirely, as before, so that every problem
// is reported as it always was (see ParseJournal).
//
// Even that look cost a hook 1.6 µs a line, 2 ms at 800 lines, so a
// journal with a summary (summary.go) is read from it: only the lines
// after the summary are looked at, and what a hook asks (the newest
// checkpoint, the highest number and turn, a session's turn) is answered
// from them and the summary. A question about every line (Event, All,
// Records, Problems, ...) first reads the older lines too (whole).
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
// decoding a line costs about 10 us, and decoding 64 on every read took
// 0.6 ms of each hook's 7 (docs/speed.md, "A scan begun early").
const decodedTail = 1

// NewJournal returns a journal holding events, chained as Append would
// write them, in memory only.
func NewJournal(events ...Event) *Journal {
	_, j, err := encodeJournal(events)
	if err != nil {
		panic(err) // only unencodable values (NaN) fail; events hold none
	}
	return j
}

// ParseJournal reads journal lines. It never fails: a line that does not
// parse is reported in Problems and skipped, so one bad byte cannot hide
// every checkpoint.
//
// The lines are first looked at without decoding (glance): when every
// line chains to the one before and has the shape json.Marshal gives an
// Event, and the newest decodedTail lines decode, the journal is whole
// and the other lines are decoded only when needed. An edit to any older
// line breaks the chain at the line after it, so nothing is believed that
// a full decoding would reject: each line was decoded, as the newest,
// when the next was written (a journal that does not read whole is
// rebuilt before anything is added to it). Otherwise every line is
// decoded, and Problems says what is wrong, line by line.
func ParseJournal(data []byte) *Journal {
	if j := glanceAll(data); j != nil {
		return j
	}
	return decodeAll(data)
}

// glanceAll reads a whole journal without decoding its older lines, or
// returns nil when it is not whole.
func glanceAll(data []byte) *Journal { return glanceFrom(data, "") }

// glanceFrom reads journal lines the first of which follows the line
// whose hash is last, as glanceAll does.
func glanceFrom(data []byte, last string) *Journal {
	if len(data) > 0 && data[len(data)-1] != '\n' {
		return nil // cut short
	}
	j := &Journal{last: last}
	for rest := data; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		raw := rest[:i]
		rest = rest[i+1:]
		if len(bytes.TrimSpace(raw)) == 0 {
			if len(raw) > 0 {
				return nil // whitespace: leave it to decodeAll's rules
			}
			j.hashes = append(j.hashes, "")
			continue
		}
		prev, ok := prevOf(raw)
		if !ok || prev != j.last {
			return nil
		}
		l := &line{raw: raw}
		if !l.glance() {
			return nil
		}
		j.last = lineHash(raw)
		j.hashes = append(j.hashes, j.last)
		j.lines = append(j.lines, l)
	}
	for _, l := range j.lines[max(0, len(j.lines)-decodedTail):] {
		ev, err := l.decode()
		if err != nil || ev.Type == "" || ev.Type == EventCheckpoint && ev.Checkpoint == nil {
			return nil
		}
	}
	// Blank lines take a line number and no hash; trailing ones, which
	// decodeAll does not count, are dropped.
	for len(j.hashes) > 0 && j.hashes[len(j.hashes)-1] == "" {
		j.hashes = j.hashes[:len(j.hashes)-1]
	}
	return j
}

// decodeAll decodes every line, noting each problem.
func decodeAll(data []byte) *Journal {
	j := &Journal{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 64*1024*1024)
	lineNo := 0
	for sc.Scan() {
		lineNo++
		raw := sc.Bytes()
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		raw = bytes.Clone(raw)
		l := &line{raw: raw}
		if ev, err := l.decode(); err != nil || ev.Type == "" {
			j.problems = append(j.problems, fmt.Sprintf("line %d does not parse", lineNo))
		} else {
			if ev.Prev != j.last {
				j.problems = append(j.problems, fmt.Sprintf("line %d does not follow line %d (edited, removed or reordered lines)", lineNo, lineNo-1))
			}
			if ev.Type == EventCheckpoint && ev.Checkpoint == nil {
				j.problems = append(j.problems, fmt.Sprintf("line %d is a checkpoint without a record", lineNo))
			} else {
				j.lines = append(j.lines, l)
			}
		}
		j.last = lineHash(raw)
		for len(j.hashes) < lineNo-1 {
			j.hashes = append(j.hashes, "")
		}
		j.hashes = append(j.hashes, j.last)
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		j.problems = append(j.problems, fmt.Sprintf("line %d is cut short (the journal was truncated)", lineNo))
	}
	return j
}

func lineHash(line []byte) string {
	sum := sha256.Sum256(line)
	return hex.EncodeToString(sum[:8])
}

// add appends an event that was just written as raw.
func (j *Journal) add(raw []byte, ev Event) {
	l := &line{raw: raw, ev: &ev}
	l.note()
	j.lines = append(j.lines, l)
	j.last = lineHash(raw)
	j.hashes = append(j.hashes, j.last)
}

// Event returns event i (0 is the oldest), decoding it if need be: a
// question about the newest events, asked from the end, decodes only the
// events it reads. A line that was glanced at decodes (it has the shape of
// one json.Marshal wrote, and its bytes are chained); should it not, it
// stands as an event of its type with nothing in it.
func (j *Journal) Event(i int) *Event {
	j.whole()
	return j.decoded(i)
}

// decoded returns event i of the lines read so far.
func (j *Journal) decoded(i int) *Event {
	ev, err := j.lines[i].decode()
	if err != nil {
		return &Event{Type: j.lines[i].typ}
	}
	return ev
}

// Len returns the number of events.
func (j *Journal) Len() int {
	j.whole()
	return len(j.lines)
}

// Problems lists what did not parse or did not chain, one line each, for
// doctor; the events that did parse are still used.
func (j *Journal) Problems() []string {
	j.whole()
	return j.problems
}

// All returns every event, in order, decoding what was not yet.
func (j *Journal) All() []Event {
	j.whole()
	if len(j.all) != len(j.lines) {
		j.all = make([]Event, len(j.lines))
		for i := range j.lines {
			j.all[i] = *j.Event(i)
		}
	}
	return j.all
}

// Checkpoints returns the checkpoints in the order they were taken, without
// the reuse records (those name a checkpoint that is already listed).
func (j *Journal) Checkpoints() []*Record {
	j.whole()
	var out []*Record
	for i, l := range j.lines {
		if l.typ == EventCheckpoint && !l.reused {
			if r := j.Event(i).Checkpoint; r != nil {
				out = append(out, r)
			}
		}
	}
	return out
}

// Latest returns the newest checkpoint, or nil.
func (j *Journal) Latest() *Record {
	for i := len(j.lines) - 1; i >= 0; i-- {
		if l := j.lines[i]; l.typ == EventCheckpoint && !l.reused {
			if r := j.decoded(i).Checkpoint; r != nil {
				return r
			}
		}
	}
	if j.path != "" {
		return j.sum.Latest
	}
	return nil
}

// MaxN returns the highest checkpoint number recorded.
func (j *Journal) MaxN() int {
	n := 0
	if j.path != "" {
		n = j.sum.MaxN
	}
	for _, l := range j.lines {
		if l.typ == EventCheckpoint && !l.reused || l.typ == EventCompacted {
			n = max(n, l.n)
		}
	}
	return n
}

// Numbers returns the numbers of the checkpoints recorded.
func (j *Journal) Numbers() map[int]bool {
	j.whole()
	out := map[int]bool{}
	for _, l := range j.lines {
		if l.typ == EventCheckpoint && !l.reused {
			out[l.n] = true
		}
	}
	return out
}

// MaxTurn returns the highest turn number of any checkpoint record (reuse
// records too), or of the records a compaction dropped; 0 when none has a
// turn.
func (j *Journal) MaxTurn() int {
	n := 0
	if j.path != "" {
		n = j.sum.MaxTurn
	}
	for _, l := range j.lines {
		if l.typ == EventCheckpoint || l.typ == EventCompacted {
			n = max(n, TurnNumber(l.turn))
		}
	}
	return n
}

// HasTurns reports whether any checkpoint record (reuse records too)
// belongs to a turn, from what a look at each line found: decoding every
// line to ask cost a rewind 4 ms of CPU beside its plan at 300 lines.
func (j *Journal) HasTurns() bool {
	j.whole()
	for _, l := range j.lines {
		if l.typ == EventCheckpoint && l.turn != "" {
			return true
		}
	}
	return false
}

// AnyAgent reports whether any checkpoint record (reuse records too) was
// taken for an agent for which is returns true, from what a look at each
// line found: decoding every line to ask cost each rewind 15 ms at 10,000
// files, after the benchmark's other cases (traced).
func (j *Journal) AnyAgent(is func(agent string) bool) bool {
	j.whole()
	for _, l := range j.lines {
		if l.typ == EventCheckpoint && is(l.agent) {
			return true
		}
	}
	return false
}

// TurnOf returns the turn of session's newest record that has one, or "".
func (j *Journal) TurnOf(session string) string {
	for i := len(j.lines) - 1; i >= 0; i-- {
		if l := j.lines[i]; l.typ == EventCheckpoint && l.session == session && l.turn != "" {
			return l.turn
		}
	}
	if j.path == "" {
		return ""
	}
	if turn, ok := j.sum.turnOf(session); ok {
		return turn
	}
	j.whole()
	return j.TurnOf(session)
}

// TurnStart returns the record that started turn, or nil. Only that
// turn's lines are decoded, newest first: a turn's end asks, and its
// start is near.
func (j *Journal) TurnStart(turn string) *Record {
	for i := len(j.lines) - 1; i >= 0; i-- {
		if l := j.lines[i]; l.typ == EventCheckpoint && l.turn == turn {
			if r := j.Event(i).Checkpoint; r != nil && r.Reason == ReasonTurnStart {
				return r
			}
		}
	}
	if j.path == "" {
		return nil
	}
	j.whole()
	return j.TurnStart(turn)
}

// ByID finds a checkpoint by its k<n> id: the first record of that id
// that is not a reuse. A record's id is "k" and its number (Record.N), so
// the lines are indexed by the number a look at them finds, without
// decoding them, once; log, the picker and completion ask for every
// turn's start and end.
func (j *Journal) ByID(id string) *Record {
	n, ok := idNumber(id)
	if !ok {
		return nil
	}
	j.whole()
	if j.first == nil {
		j.first = map[int]int{}
	}
	for ; j.indexed < len(j.lines); j.indexed++ {
		l := j.lines[j.indexed]
		if _, seen := j.first[l.n]; !seen && l.typ == EventCheckpoint && !l.reused {
			j.first[l.n] = j.indexed
		}
	}
	i, ok := j.first[n]
	if !ok {
		return nil
	}
	if r := j.Event(i).Checkpoint; r != nil && r.ID == id {
		return r
	}
	return nil
}

// Pruned reports whether the checkpoint with id was pruned.
func (j *Journal) Pruned(id string) bool {
	for p := range j.prunedIDs() {
		if p == id {
			return true
		}
	}
	return false
}

// PrunedIDs returns the ids of every checkpoint that was pruned.
func (j *Journal) PrunedIDs() map[string]bool {
	out := map[string]bool{}
	for id := range j.prunedIDs() {
		out[id] = true
	}
	return out
}

// prunedIDs yields the ids the pruned events name, and those a compacted
// event names for the pruned events it dropped, in order; only those
// lines are decoded.
func (j *Journal) prunedIDs() iter.Seq[string] {
	return func(yield func(string) bool) {
		j.whole()
		for i, l := range j.lines {
			if l.typ != EventPruned && l.typ != EventCompacted {
				continue
			}
			for _, id := range j.Event(i).Pruned {
				if !yield(id) {
					return
				}
			}
		}
	}
}

// Records is the checkpoint records of a journal, reuse records too, in
// the order they were written. What a look at each line found, its
// turn, needs no decoding, and Get decodes a record when it is first
// asked for: a rewind's classification reads every record's turn but
// only the records since its target, where decoding every line cost it
// 10 ms at 350 lines.
type Records struct {
	j  *Journal
	at []int // each record's line
}

// Records returns the journal's checkpoint records.
func (j *Journal) Records() Records {
	j.whole()
	r := Records{j: j}
	for i, l := range j.lines {
		if l.typ == EventCheckpoint {
			r.at = append(r.at, i)
		}
	}
	return r
}

// Len returns the number of records.
func (r Records) Len() int { return len(r.at) }

// Turn returns the turn of record i, "" for none.
func (r Records) Turn(i int) string { return r.j.lines[r.at[i]].turn }

// Session returns the session of record i, "" for none.
func (r Records) Session(i int) string { return r.j.lines[r.at[i]].session }

// Agent returns the agent of record i, "" for none.
func (r Records) Agent(i int) string { return r.j.lines[r.at[i]].agent }

// Reused reports whether record i is a reuse record (nothing changed).
func (r Records) Reused(i int) bool { return r.j.lines[r.at[i]].reused }

// Get returns record i. A line that was glanced at decodes (see Event);
// should it not, it stands as a record with nothing in it.
func (r Records) Get(i int) *Record {
	if c := r.j.Event(r.at[i]).Checkpoint; c != nil {
		return c
	}
	return &Record{}
}

// Index returns the position of the first record of the checkpoint id,
// reuse or not, or -1 when there is none.
func (r Records) Index(id string) int {
	if n, ok := idNumber(id); ok {
		for i := range r.at {
			if r.is(i, n, id) {
				return i
			}
		}
	}
	return -1
}

// Is reports whether record i is one of the checkpoint id, decoding it
// only when its number is id's.
func (r Records) Is(i int, id string) bool {
	n, ok := idNumber(id)
	return ok && r.is(i, n, id)
}

func (r Records) is(i, n int, id string) bool {
	return r.j.lines[r.at[i]].n == n && r.Get(i).ID == id
}

// idNumber is the number of the checkpoint id: a record's id is "k" and
// its number (Record.N).
func idNumber(id string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimPrefix(id, "k"))
	return n, strings.HasPrefix(id, "k") && err == nil
}

// LastRewind returns the newest rewind_started event and whether a
// rewind_ended followed it.
func (j *Journal) LastRewind() (started *Rewind, ended bool) {
	j.whole()
	for i := len(j.lines) - 1; i >= 0; i-- {
		switch j.lines[i].typ {
		case EventRewindEnded:
			ended = true
		case EventRewindStarted:
			return j.Event(i).Rewind, ended
		}
	}
	return nil, false
}

// readJournal loads the journal file and checks it against its head file;
// a missing file is an empty journal. It is read from its summary when it
// has one that still stands (readSummarized).
func readJournal(path string) (*Journal, error) {
	head, err := os.ReadFile(path + headSuffix)
	if err != nil {
		head = nil
	}
	if j := readSummarized(path, head); j != nil {
		return j, nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Journal{Missing: true}, nil
	}
	if err != nil {
		return nil, err
	}
	return readWhole(data, head), nil
}

// readWhole reads every line of a journal file and checks it against its
// head file (nil for none).
func readWhole(data, head []byte) *Journal {
	j := ParseJournal(data)
	if head != nil {
		j.checkHead(string(head))
	}
	return j
}

// whole reads the lines the summary stood for, when the journal was read
// from one, so that a question about every line is answered from every
// line. The file is read again. While it holds what was read (the bytes
// the summary stands for, by its checksum, and the tail), the older lines
// are checked as every line is (glanceAll) and go in front of the lines in
// memory. Otherwise it changed meanwhile (replaced, or edited under the
// command), and the journal is what the file now holds, read as one
// without a summary is, its problems reported, followed by the lines
// staged and not yet written.
func (j *Journal) whole() {
	if j.path == "" {
		return
	}
	path, head, tail, sum := j.path, j.head, j.tail, j.sum
	j.path, j.head, j.tail = "", nil, nil
	data, err := os.ReadFile(path)
	if err == nil && int64(len(data)) >= sum.Start+int64(len(tail)) &&
		bytes.Equal(data[sum.Start:sum.Start+int64(len(tail))], tail) && checksum(data[:sum.End]) == sum.CRC {
		if older := glanceAll(data[:sum.End]); older != nil && len(older.hashes) == j.base && older.last == sum.Hash {
			j.sumAt = len(older.lines)
			j.lines = append(older.lines, j.lines...)
			j.hashes = append(older.hashes, j.hashes...)
			j.base = 0
			return
		}
	}
	all := readWhole(data, head)
	for _, l := range j.lines[len(j.lines)-j.staged:] {
		all.lines = append(all.lines, l)
		all.last = lineHash(l.raw)
		all.hashes = append(all.hashes, all.last)
	}
	all.staged, all.summarized = j.staged, j.summarized
	*j = *all
}

// lineCount returns the number of lines, blank ones included.
func (j *Journal) lineCount() int { return j.base + len(j.hashes) }

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
	n, hash, ok := parseHead(head)
	if !ok || j.replaced(head) {
		return
	}
	switch {
	case n > len(j.hashes):
		j.problems = append(j.problems, fmt.Sprintf("the journal ends at line %d but was written up to line %d (truncated)", len(j.hashes), n))
	case j.hashes[n-1] != hash:
		j.problems = append(j.problems, fmt.Sprintf("line %d is not the line written there (edited)", n))
	}
}

// headAgrees reports whether a journal read from its summary agrees with
// its head file as checkHead would find the whole journal does: the line
// the head names is the summary's last or one after it, and it is that
// line. Anything else is left to checkHead, on every line.
func (j *Journal) headAgrees(head string) bool {
	n, hash, ok := parseHead(head)
	switch {
	case !ok:
		return true
	case n == j.base:
		return hash == j.sum.Hash
	case n > j.base && n <= j.lineCount():
		return j.hashes[n-j.base-1] == hash
	}
	return false
}

// parseHead reads a head file, "N HASH".
func parseHead(head string) (n int, hash string, ok bool) {
	if _, err := fmt.Sscanf(head, "%d %s", &n, &hash); err != nil || n <= 0 {
		return 0, "", false
	}
	return n, hash, true
}

// replaced reports whether head is the head of the journal a compaction
// replaced: the compacted journal is renamed into place before its head is
// written, and a crash between the two leaves the old head behind.
func (j *Journal) replaced(head string) bool {
	j.whole()
	if len(j.lines) == 0 || j.lines[0].typ != EventCompacted {
		return false
	}
	c := j.Event(0).Compacted
	return c != nil && c.Replaced != "" && c.Replaced == strings.TrimSpace(head)
}

// stageJournal chains ev to the journal's last line in memory only: the
// journal reads as if it were written (Latest, MaxN, the next line's
// Prev), until flushJournal writes it with every line staged before it.
func stageJournal(j *Journal, ev Event) error {
	ev.Prev = j.last
	line, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	j.add(line, ev)
	j.staged++
	return nil
}

// flushJournal writes the staged lines in one write and syncs them: a
// checkpoint is not reported, and a rewind touches no file, until its line
// is on disk.
// fdatasync is enough for appended lines (it flushes the new size, not
// the times); the directory is synced too when the lines created the
// file. Lines that could not be written stay staged, and the journal in
// memory then says more than the file: the caller gives up the command.
func flushJournal(path string, j *Journal) error {
	if j.staged == 0 {
		return nil
	}
	var buf []byte
	for _, l := range j.lines[len(j.lines)-j.staged:] {
		buf = append(append(buf, l.raw...), '\n')
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	created := errors.Is(err, fs.ErrNotExist)
	if created {
		f, err = os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, PrivateFile)
	}
	if err != nil {
		return err
	}
	if _, err := f.Write(buf); err != nil {
		f.Close()
		return err
	}
	if err := durable.Datasync(f); err != nil {
		f.Close()
		return err
	}
	end, err := f.Seek(0, io.SeekCurrent) // the end: the file is appended to
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if created {
		if err := durable.SyncDir(filepath.Dir(path)); err != nil {
			return err
		}
	}
	j.staged = 0
	j.Missing = false
	if err := writeHead(path, j); err != nil {
		return err
	}
	if j.lineCount()-j.summarized >= summaryEvery {
		writeSummary(path, j, end)
	}
	return nil
}

// writeHead records the journal's last line in its head file, "N HASH"
// and a newline, padded with spaces to headSize bytes. It overwrites the
// file in place: a new file renamed over it cost every capture 0.8-1.1 ms
// (traced at 1,000 files), for an inode made and the old one freed with
// its block, which a file system mounted with discard tells the disk at
// once. headSize bytes at the start of the file lie in one disk sector,
// which a disk writes whole or not at all (PostgreSQL keeps pg_control
// under 512 bytes for the same reason), so a power loss leaves the old
// head or the new one, as the rename did. A reader without the lock may
// see the new head before the line it names, as it could before: it
// reads the journal again under the lock before repairing anything.
func writeHead(path string, j *Journal) error {
	b := fmt.Appendf(nil, "%d %s\n", j.lineCount(), j.last)
	if len(b) < headSize {
		b = append(b, bytes.Repeat([]byte(" "), headSize-len(b))...)
	}
	return overwrite(path+headSuffix, b)
}

// syncHead writes the journal's head (writeHead) and syncs it. Only a
// compaction needs it: the compacted journal names the head of the one it
// replaces (Compacted.Replaced), and a head on disk that lags behind
// that one, as an unsynced head may after a power loss, would read as
// the compacted journal edited (TestPowerLoss found it after a prune).
func syncHead(path string, j *Journal) error {
	if err := writeHead(path, j); err != nil {
		return err
	}
	f, err := os.OpenFile(path+headSuffix, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	err = durable.Datasync(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// overwrite writes b over the file at path in place, without a sync, and
// cuts it to b's length when it was of another (older or damaged).
func overwrite(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, PrivateFile)
	if err != nil {
		return err
	}
	_, err = f.WriteAt(b, 0)
	if fi, serr := f.Stat(); err == nil && (serr != nil || fi.Size() != int64(len(b))) {
		err = f.Truncate(int64(len(b)))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// headSize is the length of a head file: "N HASH\n" is at most 37 bytes
// (10 digits, 16 hex digits).
const headSize = 64

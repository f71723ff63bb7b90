package store

import (
	"bytes"
	"encoding/json"
	"hash"
	"hash/crc32"
	"io"
	"os"
	"slices"
)

// A hook asks the journal four things: the newest checkpoint, the highest
// checkpoint number and turn, and the turn its session is in. Looking at
// every line for them costs more as the journal grows by a line a tool
// call (docs/speed.md, "A hook reads the journal from its summary"). So
// every summaryEvery lines a writer notes the answers so far in a summary
// file beside the journal, with where those lines end and the last one's
// hash; a reader answers from the summary and the lines after it.
//
// The summary is a cache, never the record. It is believed only while the
// bytes it stands for are the bytes it summed up: their CRC-32, which
// costs a small part of looking at each line, and the hash of the last
// line, which the next line names. An edit anywhere in them is still
// found by the next command, which reads the journal whole and reports
// the edit as it always did. A summary that does not check (torn, stale,
// of a journal since compacted or rebuilt) is ignored: the journal is
// read whole, as it is without one.

// summarySuffix names the summary file beside the journal.
const summarySuffix = ".summary"

// summaryEvery is how many lines a writer lets follow the summary before
// it writes a new one: at most that many lines are looked at by a hook,
// and the summary is written once every that many lines.
const summaryEvery = 64

// summarySessions is how many sessions a summary names the turn of, the
// ones that were in a turn most recently; a hook of an older one reads the
// whole journal, as before.
const summarySessions = 32

// summary is what the first Lines lines of a journal hold.
type summary struct {
	Lines   int    `json:"lines"` // blank ones too
	Start   int64  `json:"start"` // the offset of the last one
	End     int64  `json:"end"`   // the offset after the last one's newline
	Hash    string `json:"hash"`  // the last one's hash
	CRC     uint32 `json:"crc"`   // the CRC-32 (IEEE) of their bytes
	MaxN    int    `json:"max_n"`
	MaxTurn int    `json:"max_turn"`
	// Latest is the newest checkpoint (not a reuse record), or nil.
	Latest *Record `json:"latest,omitempty"`
	// Sessions is the newest turn of each session whose records have
	// one, the session in a turn most recently last; Dropped says that
	// older sessions were left out.
	Sessions [][2]string `json:"sessions"`
	Dropped  bool        `json:"dropped,omitempty"`
}

// readSummarized reads a journal from its summary, or returns nil when
// the summary is missing or does not check, or the lines after it do not
// read whole or disagree with the head file: the journal is then read
// whole. Only the file from the summary's last line on is kept in memory;
// the bytes before it go through the checksum a piece at a time, for
// reading them whole into memory (faulting in and filling the buffer)
// costs a hook several times what checking them does.
func readSummarized(path string, head []byte) *Journal {
	b, err := os.ReadFile(path + summarySuffix)
	if err != nil {
		return nil
	}
	sum := parseSummary(b)
	if sum == nil || sum.Lines <= 0 || sum.Start < 0 || sum.End <= sum.Start {
		return nil
	}
	crc, tail, ok := readLastLine(path, sum.Start, sum.End, sum.Hash)
	if !ok || crc != sum.CRC {
		return nil
	}
	j := glanceFrom(tail[sum.End-sum.Start:], sum.Hash)
	if j == nil {
		return nil
	}
	j.base, j.sum, j.summarized = sum.Lines, sum, sum.Lines
	j.path, j.head, j.tail = path, head, tail
	if head != nil && !j.headAgrees(string(head)) {
		return nil
	}
	return j
}

// readLastLine reads the file at path from start on, where a summary's
// last line begins: it must run to end, newline included, and have that
// hash. It returns the checksum of the file up to end and the file from
// start on. The bytes before start are summed a piece at a time and never
// held in memory whole. Reader and writer both check a summary's bytes
// through it, so that what one sums is what the other finds.
func readLastLine(path string, start, end int64, hash string) (crc uint32, tail []byte, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, nil, false
	}
	defer f.Close()
	h := newChecksum()
	if _, err := io.CopyN(h, f, start); err != nil {
		return 0, nil, false
	}
	tail, err = io.ReadAll(f)
	last := end - start
	if err != nil || int64(len(tail)) < last || bytes.IndexByte(tail[:last], '\n') != int(last)-1 ||
		lineHash(tail[:last-1]) != hash {
		return 0, nil, false
	}
	h.Write(tail[:last])
	return h.Sum32(), tail, true
}

// newChecksum starts the summary's checksum, the CRC-32 IEEE's: the
// processor computes it (PCLMULQDQ) with nothing to prepare, where every
// hook would build the Castagnoli polynomial's tables before its first
// byte.
func newChecksum() hash.Hash32 { return crc32.NewIEEE() }

// checksum is the summary's checksum of data.
func checksum(data []byte) uint32 {
	h := newChecksum()
	h.Write(data)
	return h.Sum32()
}

// parseSummary reads a summary file: the hash of the rest (as lineHash
// gives it) on a line, then the summary as JSON.
func parseSummary(b []byte) *summary {
	const hashLen = 16
	if len(b) <= hashLen || b[hashLen] != '\n' || lineHash(b[hashLen+1:]) != string(b[:hashLen]) {
		return nil
	}
	var sum summary
	if err := json.Unmarshal(b[hashLen+1:], &sum); err != nil {
		return nil
	}
	return &sum
}

// writeSummary writes the summary of every line of j, which end at end
// (the journal holds no staged line). The checksum is of the file as it
// is on disk, read back as a reader reads it: the lines were just synced,
// and the lock keeps other writers out. It overwrites the summary file in
// place, without a sync: a summary cut short does not check, and is
// ignored. A summary that cannot be written is no loss, and not reported:
// the journal is then read whole.
func writeSummary(path string, j *Journal, end int64) {
	if len(j.problems) > 0 || j.staged > 0 || len(j.lines) == 0 {
		return
	}
	sum := j.summarize(end)
	sum.Start = end - int64(len(j.lines[len(j.lines)-1].raw)) - 1
	if sum.Start < 0 {
		return
	}
	crc, _, ok := readLastLine(path, sum.Start, end, sum.Hash)
	if !ok {
		return // the file ends otherwise than the journal in memory
	}
	sum.CRC = crc
	content, err := json.Marshal(sum)
	if err != nil {
		return
	}
	if overwrite(path+summarySuffix, append([]byte(lineHash(content)+"\n"), content...)) == nil {
		j.summarized = j.lineCount()
	}
}

// summarize sums up every line of j, which end at end: the summary it was
// read with, and the lines after it.
func (j *Journal) summarize(end int64) *summary {
	s := &summary{}
	if j.sum != nil {
		*s = *j.sum
		s.Sessions = slices.Clone(s.Sessions)
	}
	s.Lines, s.End, s.Hash = j.lineCount(), end, j.last
	for i := j.sumAt; i < len(j.lines); i++ {
		s.add(j.lines[i])
	}
	for i := len(j.lines) - 1; i >= j.sumAt; i-- {
		if l := j.lines[i]; l.typ == EventCheckpoint && !l.reused {
			if r := j.decoded(i).Checkpoint; r != nil {
				s.Latest = r
				break
			}
		}
	}
	return s
}

// add sums up one more line, as MaxN, MaxTurn and TurnOf read it.
func (s *summary) add(l *line) {
	switch l.typ {
	case EventCompacted:
		s.MaxN = max(s.MaxN, l.n)
		s.MaxTurn = max(s.MaxTurn, TurnNumber(l.turn))
	case EventCheckpoint:
		if !l.reused {
			s.MaxN = max(s.MaxN, l.n)
		}
		s.MaxTurn = max(s.MaxTurn, TurnNumber(l.turn))
		if l.session != "" && l.turn != "" {
			s.Sessions = slices.DeleteFunc(s.Sessions, func(st [2]string) bool { return st[0] == l.session })
			s.Sessions = append(s.Sessions, [2]string{l.session, l.turn})
			if len(s.Sessions) > summarySessions {
				s.Sessions = slices.Delete(s.Sessions, 0, len(s.Sessions)-summarySessions)
				s.Dropped = true
			}
		}
	}
}

// turnOf returns the turn of session's newest record that has one among
// the lines summed up, and whether the summary knows: a session it does
// not name had no turn, unless older sessions were dropped.
func (s *summary) turnOf(session string) (string, bool) {
	for _, st := range s.Sessions {
		if st[0] == session {
			return st[1], true
		}
	}
	return "", !s.Dropped
}

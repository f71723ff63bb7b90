package store

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// Reading the journal: the cheap look at every line, the whole decode of
// a journal that is not perfectly whole, the head's check.

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

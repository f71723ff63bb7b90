package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/git-checkpoint/git-checkpoint/internal/durable"
)

// Writing the journal: lines are staged in memory, then written in one
// append and synced before the command says it did anything; the head
// file follows them.

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

// writeHead records the journal's last line in its head file, "N HASH" and
// a newline, padded with spaces to headSize bytes, overwritten in place:
// renaming a new file over it cost every capture an inode made and one
// freed, which a file system mounted with discard tells the disk at once
// (docs/speed.md, "A rewind decodes only the lines it reads; the head
// written in place"). headSize bytes at the start of the file lie in one
// disk sector, which a disk writes whole or not at all (PostgreSQL keeps
// pg_control under 512 bytes for the same reason), so a power loss leaves
// the old head or the new one, as the rename did. A reader without the
// lock may see the new head before the line it names, as it could before:
// it reads the journal again under the lock before repairing anything.
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

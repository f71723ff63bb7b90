package store

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/durable"
	"github.com/git-checkpoint/git-checkpoint/internal/fault"
)

// NeedsRepair reports whether the journal must be repaired before it is
// trusted: it is damaged (a line does not parse or chain, or it was cut
// short), or a checkpoint ref has no record in it (a crash between the ref
// and the journal line, or a lost journal).
func NeedsRepair(j *Journal, refs Refs) bool {
	return len(j.Problems()) > 0 || len(unrecorded(j, refs)) > 0
}

// unrecorded lists the checkpoint numbers that have a ref and no record.
func unrecorded(j *Journal, refs Refs) []int {
	known := j.Numbers()
	var out []int
	for n := range refs {
		if !known[n] {
			out = append(out, n)
		}
	}
	return out
}

// Repair makes the journal whole: a damaged journal is rebuilt (the damaged
// file is kept aside, never emptied), a lost one is noted, and every ref
// without a record is adopted from its commit's trailers. It returns what
// it did, one sentence each, for the person who runs the command. The
// caller holds the lock.
func (s *Store) Repair(ctx context.Context, j *Journal, refs Refs) ([]string, error) {
	var did []string
	switch {
	case len(j.Problems()) > 0:
		aside, err := s.Rebuild(j)
		if err != nil {
			return nil, err
		}
		did = append(did, fmt.Sprintf("the journal was damaged: %s; rebuilt it from what was readable and the checkpoint refs; the damaged file is kept as %s",
			j.Event(0).Rebuilt.Problems[0], aside))
	case j.Missing && len(refs) > 0:
		if err := s.Append(j, Event{Type: EventRebuilt, Rebuilt: &Rebuilt{Problems: []string{"the journal was missing"}}}); err != nil {
			return nil, err
		}
		did = append(did, "the journal was missing; rebuilt it from the checkpoint refs and their commits' trailers")
	}
	missing := unrecorded(j, refs)
	if len(missing) == 0 {
		return did, nil
	}
	n, err := s.Adopt(ctx, j, refs)
	if err != nil {
		return did, err
	}
	if n > 0 {
		did = append(did, fmt.Sprintf("adopted %d %s that had a ref but no record", n, fault.Plural(n, "checkpoint", "checkpoints")))
	}
	return did, nil
}

// Rebuild replaces a damaged journal with one that starts with a rebuilt
// event (why, and where the damaged file went) followed by every event
// that parsed, chained anew. The damaged file is kept as
// journal.jsonl.corrupt-<time> first, and the new journal replaces it by
// rename, so a crash at any point leaves either journal whole. The caller
// holds the lock, and adopts refs afterwards.
func (s *Store) Rebuild(j *Journal) (aside string, err error) {
	path := s.Path("journal.jsonl")
	stamp := s.Now().UTC().Format("20060102T150405Z")
	aside = path + ".corrupt-" + stamp
	for i := 2; exists(aside); i++ {
		aside = path + ".corrupt-" + stamp + "-" + strconv.Itoa(i)
	}
	if err := keepAside(path, aside); err != nil {
		return "", fault.Wrap(err, fault.FailedIO, "cannot keep the damaged journal aside")
	}
	data, fresh, err := encodeJournal(append([]Event{{Type: EventRebuilt, At: s.Now().UTC(),
		Rebuilt: &Rebuilt{Aside: aside, Problems: j.Problems()}}}, j.All()...))
	if err != nil {
		return "", err
	}
	// The new journal is on disk, renamed over the damaged one, before
	// the head names its last line (and before anything is appended to it).
	if err := durable.WriteFile(path, data); err != nil {
		return "", fault.Wrap(err, fault.FailedIO, "cannot replace the damaged journal")
	}
	if err := writeHead(path, fresh); err != nil {
		return "", fault.Wrap(err, fault.FailedIO, "cannot write the journal's head")
	}
	*j = *fresh
	return aside, nil
}

// encodeJournal writes events as journal lines chained from the start, and
// returns them with the journal they make.
func encodeJournal(events []Event) ([]byte, *Journal, error) {
	j := &Journal{}
	var buf bytes.Buffer
	for _, ev := range events {
		ev.Prev = j.last
		line, err := json.Marshal(ev)
		if err != nil {
			return nil, nil, err
		}
		buf.Write(line)
		buf.WriteByte('\n')
		j.add(line, ev)
	}
	return buf.Bytes(), j, nil
}

// Aside lists the damaged journals kept by Rebuild.
func (s *Store) Aside() []string {
	entries, _ := os.ReadDir(s.Dir)
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "journal.jsonl.corrupt-") {
			out = append(out, s.Path(e.Name()))
		}
	}
	return out
}

// keepAside hard-links the damaged journal under its new name, so the
// original stays in place until the rebuilt one replaces it; it copies
// where links are not possible.
func keepAside(path, aside string) error {
	if err := os.Link(path, aside); err == nil {
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return durable.WriteFile(aside, data)
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

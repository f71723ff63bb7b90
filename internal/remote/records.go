// Package remote publishes a working tree's checkpoints through a git
// remote and brings other stores' back: git's own transports (ssh, https,
// file, git daemon) carry them, under refs/checkpoints/stores/<id>/, which
// no default refspec pushes or fetches.
package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// Format is the version of a records commit's layout; a reader refuses a
// newer one rather than misread it.
const Format = 1

// The files of a records commit's tree.
const (
	infoFile    = "store.json"
	recordsFile = "records.jsonl"
)

// Info says whose store a records commit describes.
type Info struct {
	Format   int    `json:"format"`
	ID       string `json:"id"`
	Host     string `json:"host"`     // a label for people: the pushing machine's host name
	Worktree string `json:"worktree"` // "main" or "wt-<name>" there
}

// Records is what a store publishes beside its checkpoint refs: who it is,
// and the journal's checkpoint events (reuses included, which mark turn
// boundaries) of the checkpoints it published, in the order they were
// recorded, prompts and sessions with them.
type Records struct {
	Info   Info
	Events []store.Event
}

// RecordsRef is the ref of store id's records.
func RecordsRef(id string) string { return store.StorePrefix(id) + "records" }

// CheckpointRef is the ref of store id's checkpoint n.
func CheckpointRef(id string, n int) string { return store.StorePrefix(id) + strconv.Itoa(n) }

// checkpointN is the number of a ref under prefix, or 0 when it is not a
// checkpoint's.
func checkpointN(name, prefix string) int {
	n, err := strconv.Atoi(strings.TrimPrefix(name, prefix))
	if err != nil || n <= 0 || !strings.HasPrefix(name, prefix) {
		return 0
	}
	return n
}

// Numbers are the checkpoint numbers the records name.
func (r *Records) Numbers() map[int]bool {
	out := map[int]bool{}
	for _, ev := range r.Events {
		if ev.Checkpoint != nil {
			out[ev.Checkpoint.N] = true
		}
	}
	return out
}

// encode is the bytes of the two files. The events lose their chain
// (Prev): it chains lines of one journal file, and a reader chains them
// again when it makes a journal of them.
func (r *Records) encode() (info, records []byte, err error) {
	info, err = json.Marshal(r.Info)
	if err != nil {
		return nil, nil, err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, ev := range r.Events {
		ev.Prev = ""
		if err := enc.Encode(ev); err != nil {
			return nil, nil, err
		}
	}
	return append(info, '\n'), b.Bytes(), nil
}

// write stores the records as a commit whose parents are the checkpoints
// given, never an earlier records commit: each push replaces the whole,
// so the remote keeps no history of old records, and the compare-and-swap
// of the push is what orders writers.
func (r *Records) write(ctx context.Context, g *git.Runner, parents []string) (string, error) {
	info, recs, err := r.encode()
	if err != nil {
		return "", err
	}
	var entries []git.TreeEntry
	for _, f := range []struct {
		name string
		data []byte
	}{{infoFile, info}, {recordsFile, recs}} {
		id, err := g.WriteBlob(ctx, f.data)
		if err != nil {
			return "", err
		}
		entries = append(entries, git.TreeEntry{Mode: "100644", Type: "blob", OID: id, Path: f.name})
	}
	tree, err := g.StoreTree(ctx, entries)
	if err != nil {
		return "", err
	}
	return g.CommitTree(ctx, git.CommitRequest{Tree: tree, Parents: parents, Message: "checkpoint records of store " + r.Info.ID + "\n", Env: git.Identity})
}

// readRecords reads the records commit oid, which must be here; ok is
// false when it is not.
func readRecords(ctx context.Context, g *git.Runner, oid string) (r *Records, ok bool, err error) {
	objs, err := g.CatFile(ctx, []string{oid + ":" + infoFile, oid + ":" + recordsFile})
	if err != nil {
		return nil, false, err
	}
	if objs[0].Missing || objs[1].Missing {
		return nil, false, nil
	}
	r = &Records{}
	if err := json.Unmarshal(objs[0].Body, &r.Info); err != nil {
		return nil, true, fmt.Errorf("records %s: %s does not parse: %w", oid, infoFile, err)
	}
	if r.Info.Format > Format {
		return nil, true, fmt.Errorf("records %s: format %d is newer than this git-checkpoint reads (%d): upgrade it", oid, r.Info.Format, Format)
	}
	dec := json.NewDecoder(bytes.NewReader(objs[1].Body))
	for dec.More() {
		var ev store.Event
		if err := dec.Decode(&ev); err != nil {
			return nil, true, fmt.Errorf("records %s: %s does not parse: %w", oid, recordsFile, err)
		}
		if ev.Type == store.EventCheckpoint && ev.Checkpoint != nil {
			r.Events = append(r.Events, ev)
		}
	}
	return r, true, nil
}

package remote

import (
	"context"
	"errors"

	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/secrets"
)

// scan returns the findings in blobs, each with the index of its blob:
// those the scan cache remembers under the scanner's rules, and those of
// a scan of the others, read by one cat-file and streamed to the scanner
// as they come. What the scan found is remembered only when the whole
// scan succeeded: a blob whose scan failed is never taken for clean.
func (p *Pusher) scan(ctx context.Context, blobs []git.ObjectPath, scanner secrets.Scanner) ([]secrets.Finding, error) {
	var cache *scanCache
	if v, ok := scanner.(secrets.Versioned); ok && p.Store != nil {
		rules, err := v.Rules(ctx)
		if err != nil {
			return nil, err
		}
		if rules != "" {
			want := map[string]bool{}
			for _, b := range blobs {
				want[b.OID] = true
			}
			end := p.Git.Phase("scan cache read")
			cache = loadScanCache(p.Store, rules, want)
			end()
		}
	}
	var out []secrets.Finding
	var todo []int // indexes in blobs of the blobs to scan
	var kept []string
	for i, b := range blobs {
		if cache == nil {
			todo = append(todo, i)
			continue
		}
		fs, ok := cache.found[cacheKey(b.OID, b.Path)]
		if !ok {
			todo = append(todo, i)
			continue
		}
		for _, f := range fs {
			f.Item, f.Name = i, b.Path
			out = append(out, f)
		}
		if e, ok := entry(b.OID, b.Path, fs); ok {
			kept = append(kept, e)
		}
	}
	p.Git.Tracef("scan of %d files: %d remembered, %d to scan", len(blobs), len(blobs)-len(todo), len(todo))
	end := p.Git.Phase("scan")
	found, err := p.scanBlobs(ctx, blobs, todo, scanner)
	end()
	if err != nil {
		return nil, err
	}
	byItem := make([][]secrets.Finding, len(todo))
	for _, f := range found {
		if f.Item < 0 || f.Item >= len(todo) {
			return nil, errors.New("the scanner named a file it was not given")
		}
		byItem[f.Item] = append(byItem[f.Item], f)
		f.Item = todo[f.Item]
		out = append(out, f)
	}
	if cache != nil {
		var added []string
		for k, i := range todo {
			if e, ok := entry(blobs[i].OID, blobs[i].Path, byItem[k]); ok {
				added = append(added, e)
			}
		}
		if err := cache.add(added, kept); err != nil {
			p.Git.Tracef("scan cache not written: %v", err)
		}
	}
	return out, nil
}

// scanBlobs scans the blobs at the indexes todo; the findings' Item is
// an index in todo.
func (p *Pusher) scanBlobs(ctx context.Context, blobs []git.ObjectPath, todo []int, scanner secrets.Scanner) ([]secrets.Finding, error) {
	if len(todo) == 0 {
		return nil, nil
	}
	oids := make([]string, len(todo))
	for k, i := range todo {
		oids[k] = blobs[i].OID
	}
	var readErr error
	stopped := errors.New("the scanner stopped reading the files")
	items := func(yield func(secrets.Item) bool) {
		err := p.Git.ReadBlobs(ctx, oids, func(k int, body []byte) error {
			if !yield(secrets.Item{Name: blobs[todo[k]].Path, Data: body}) {
				return stopped
			}
			return nil
		})
		if err != nil {
			// Stopped too: a scanner that leaves files unread has
			// not scanned them, whatever it says.
			readErr = err
		}
	}
	found, err := scanner.Scan(ctx, items)
	if err == nil {
		err = readErr
	}
	if err != nil {
		return nil, err
	}
	return found, nil
}

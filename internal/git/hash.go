package git

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// WriteBlobs stores the files at paths (from the top of the tree) as blobs
// of their bytes as they are (--no-filters: --path= would apply a path's
// clean filter and eol conversion), and returns their ids. A file that
// cannot be stored has none, and the failures are returned with the ids of
// the others.
//
// --stdin-paths reads one path a line and unquotes one that starts with a
// double quote, so such names, and names holding a newline, take a process
// each; the rest share one.
func (r *Runner) WriteBlobs(ctx context.Context, paths []string) (map[string]string, error) {
	ids := map[string]string{}
	var lines []string
	var first error
	for _, p := range paths {
		if !strings.Contains(p, "\n") && !strings.HasPrefix(p, `"`) {
			lines = append(lines, p)
			continue
		}
		out, err := r.Run(ctx, Cmd{Args: []string{"hash-object", "-w", "--no-filters", "--", p}})
		if err != nil {
			first = errors.Join(first, err)
			continue
		}
		ids[p] = strings.TrimSpace(string(out))
	}
	if len(lines) == 0 {
		return ids, first
	}
	out, err := r.Run(ctx, Cmd{Args: []string{"hash-object", "-w", "--no-filters", "--stdin-paths"},
		Stdin: []byte(strings.Join(lines, "\n") + "\n")})
	if err != nil {
		return ids, errors.Join(first, err)
	}
	got := strings.Fields(string(out))
	if len(got) != len(lines) {
		return ids, errors.Join(first, fmt.Errorf("git hash-object --stdin-paths gave %d ids for %d paths", len(got), len(lines)))
	}
	for i, p := range lines {
		ids[p] = got[i]
	}
	return ids, first
}

// HashAs is the id of the blob git would store for file if it were the
// working tree's path (its clean filter and end-of-line conversion
// applied), written nowhere. A rewind asks it of a file it took out of
// the tree whose bytes are not the blob the scan stored, which happens
// only where git converts.
func (r *Runner) HashAs(ctx context.Context, file, path string) (string, error) {
	out, err := r.Run(ctx, Cmd{Args: []string{"hash-object", "--path=" + path, "--", file}})
	return strings.TrimSpace(string(out)), err
}

// HashFiles returns the blob ids git would store for the files at paths
// (from the top of the tree), as `git add` would make them (clean filters
// and conversions applied), without writing anything. Names --stdin-paths
// cannot carry (a newline, a leading double quote) get no id.
func (r *Runner) HashFiles(ctx context.Context, paths []string) (map[string]string, error) {
	ids := map[string]string{}
	var lines []string
	for _, p := range paths {
		if !strings.Contains(p, "\n") && !strings.HasPrefix(p, `"`) {
			lines = append(lines, p)
		}
	}
	if len(lines) == 0 {
		return ids, nil
	}
	out, err := r.Run(ctx, Cmd{Args: []string{"hash-object", "--stdin-paths"},
		Stdin: []byte(strings.Join(lines, "\n") + "\n")})
	if err != nil {
		return nil, err
	}
	got := strings.Fields(string(out))
	if len(got) != len(lines) {
		return nil, fmt.Errorf("git hash-object --stdin-paths gave %d ids for %d paths", len(got), len(lines))
	}
	for i, p := range lines {
		ids[p] = got[i]
	}
	return ids, nil
}

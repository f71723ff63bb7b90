package git

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// IndexEntry is one entry of an index file: what `ls-files -s` prints and
// `update-index --index-info` reads.
type IndexEntry struct {
	Mode, OID string
	Stage     int // 0 unless the path is unmerged
	Path      string
}

// LsStage lists the entries of index ("" for the real index) in one
// `git ls-files -z -s`.
func (r *Runner) LsStage(ctx context.Context, index string) ([]IndexEntry, error) {
	out, err := r.Run(ctx, Cmd{Args: []string{"ls-files", "-z", "-s"}, Index: index})
	if err != nil {
		return nil, err
	}
	return parseLsStage(out)
}

// parseLsStage reads "<mode> <oid> <stage>\t<path>\x00" records.
func parseLsStage(out []byte) ([]IndexEntry, error) {
	var entries []IndexEntry
	err := eachEntry(out, "ls-files -s", func(f [3]string, path string) error {
		stage, err := strconv.Atoi(f[2])
		entries = append(entries, IndexEntry{Mode: f[0], OID: f[1], Stage: stage, Path: path})
		return err
	})
	return entries, err
}

// UpdateIndexInfo writes entries into index (created when missing) in one
// `git update-index -z --index-info`, without reading any file: the
// objects must exist.
func (r *Runner) UpdateIndexInfo(ctx context.Context, index string, entries []IndexEntry) error {
	var in strings.Builder
	for _, e := range entries {
		if strings.IndexByte(e.Path, 0) >= 0 {
			return fmt.Errorf("git update-index: a path holds a NUL byte: %q", e.Path)
		}
		in.WriteString(e.Mode + " " + e.OID)
		if e.Stage != 0 {
			in.WriteString(" " + strconv.Itoa(e.Stage))
		}
		in.WriteString("\t" + e.Path + "\x00")
	}
	// Named: it writes an index and no object.
	_, err := r.Run(ctx, Cmd{Args: []string{"update-index", "-z", "--index-info"}, Index: index, Stdin: []byte(in.String()), Named: true})
	return err
}

// CheckoutAll writes every file of index under prefix (a directory, which
// ends with "/"), forcing over what is there, with `git checkout-index`:
// smudge filters, modes and symlinks come out as a checkout makes them.
func (r *Runner) CheckoutAll(ctx context.Context, index, prefix string) error {
	// Named: it writes the files and no object.
	_, err := r.Run(ctx, Cmd{Args: []string{"checkout-index", "-a", "-f", "--prefix=" + prefix}, Index: index, Smudges: true, Named: true})
	return err
}

// CheckoutPaths writes the files of index at paths under prefix as
// CheckoutAll does, the paths given NUL-terminated on standard input. git
// writes the others when one fails, and then fails.
func (r *Runner) CheckoutPaths(ctx context.Context, index, prefix string, paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	in, err := nulTerminated(paths)
	if err != nil {
		return fmt.Errorf("git checkout-index: %w", err)
	}
	_, err = r.Run(ctx, Cmd{Args: []string{"checkout-index", "-z", "--stdin", "-f", "--prefix=" + prefix}, Index: index, Stdin: in, Smudges: true, Named: true})
	return err
}

// nulTerminated is paths as -z --stdin reads them.
func nulTerminated(paths []string) ([]byte, error) {
	var b strings.Builder
	for _, p := range paths {
		if strings.IndexByte(p, 0) >= 0 {
			return nil, fmt.Errorf("a path holds a NUL byte: %q", p)
		}
		b.WriteString(p + "\x00")
	}
	return []byte(b.String()), nil
}

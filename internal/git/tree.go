package git

import (
	"context"
	"fmt"
	"strings"
)

// TreeEntry is one entry of `git ls-tree`: a blob, tree or commit (a
// gitlink) at Path, from the top of the tree that was listed.
type TreeEntry struct {
	Mode, Type, OID, Path string
}

// LsTreeOptions say what LsTree lists.
type LsTreeOptions struct {
	// Recursive lists the blobs of every subtree (-r) instead of the
	// top level's entries.
	Recursive bool
	// FullTree names entries from the top of the tree whatever directory
	// git runs in (--full-tree).
	FullTree bool
	// Paths, when set, limit the listing to these paths: literal ones
	// (--literal-pathspecs; ls-tree turns off wildcards but still reads a
	// leading ':' as magic, so ':a' listed 'a'), given after "--" so that
	// one starting with a dash stays a path.
	Paths []string
}

// LsTree lists the entries of tree in one `git ls-tree -z`; with -z a path
// comes back byte for byte, whatever spaces, newlines or bytes it holds.
func (r *Runner) LsTree(ctx context.Context, tree string, opts LsTreeOptions) ([]TreeEntry, error) {
	var args []string
	if len(opts.Paths) > 0 {
		args = append(args, "--literal-pathspecs")
	}
	args = append(args, "ls-tree")
	if opts.Recursive {
		args = append(args, "-r")
	}
	args = append(args, "-z")
	if opts.FullTree {
		args = append(args, "--full-tree")
	}
	args = append(args, tree)
	if len(opts.Paths) > 0 {
		args = append(append(args, "--"), opts.Paths...)
	}
	out, err := r.Run(ctx, Cmd{Args: args})
	if err != nil {
		return nil, err
	}
	return parseLsTree(out)
}

// parseLsTree reads "<mode> <type> <oid>\t<path>\x00" records.
func parseLsTree(out []byte) ([]TreeEntry, error) {
	var entries []TreeEntry
	err := eachEntry(out, "ls-tree", func(f [3]string, path string) error {
		entries = append(entries, TreeEntry{Mode: f[0], Type: f[1], OID: f[2], Path: path})
		return nil
	})
	return entries, err
}

// eachEntry calls add with the three fields and the path of each
// "<field> <field> <field>\t<path>\x00" record, the shape of ls-tree's
// and ls-files -s's output. The path is everything after the first tab:
// the fields before it hold none. An error of add, or a record of another
// shape, stops it.
func eachEntry(out []byte, cmd string, add func(f [3]string, path string) error) error {
	for _, rec := range SplitNUL(out) {
		meta, path, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 || add([3]string(f), path) != nil {
			return fmt.Errorf("git %s: unexpected entry %q", cmd, rec)
		}
	}
	return nil
}

// WriteTree writes the tree that index holds ("" for the real index) and
// returns its id.
func (r *Runner) WriteTree(ctx context.Context, index string) (string, error) {
	out, err := r.Run(ctx, Cmd{Args: []string{"write-tree"}, Index: index})
	return strings.TrimSpace(string(out)), err
}

// WriteEmptyTree stores the empty tree and returns its id, which depends
// on the repository's hash function; write-tree would need an index file,
// and git creates one where none is.
func (r *Runner) WriteEmptyTree(ctx context.Context) (string, error) {
	out, err := r.Run(ctx, Cmd{Args: []string{"hash-object", "-t", "tree", "-w", "--stdin"}, Stdin: []byte{}})
	return strings.TrimSpace(string(out)), err
}

// SplitNUL splits NUL-terminated records, dropping the empty one after the
// last NUL.
func SplitNUL(out []byte) []string {
	s := strings.TrimSuffix(string(out), "\x00")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\x00")
}

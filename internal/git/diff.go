package git

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/gitformat"
)

// DiffFormat is what diff-tree prints of each changed path.
type DiffFormat int

const (
	// DiffRaw gives modes, ids and status (the default raw format).
	DiffRaw DiffFormat = iota
	// DiffNameStatus gives the status and the path (--name-status).
	DiffNameStatus
	// DiffNameOnly gives the path alone (--name-only).
	DiffNameOnly
)

// AbsentMode is the mode git diff-tree gives the side a path is missing
// from.
const AbsentMode = gitformat.AbsentMode

// DiffEntry is one path that differs between two trees. Which fields are
// set depends on the format: all of them for DiffRaw, Status and Path for
// DiffNameStatus, Path alone for DiffNameOnly. It is the type of the
// entries the comparison in memory makes (gitformat.Differ), so that an
// answer is the same value whoever gave it.
type DiffEntry = gitformat.DiffEntry

// DiffTreeOptions say how DiffTree compares and what it prints.
type DiffTreeOptions struct {
	Format DiffFormat
	// Filter, when set, keeps only the changes of these kinds
	// (--diff-filter, e.g. "A" for added paths).
	Filter string
	// Pathspecs, when set, limit the comparison; they are given after
	// "--", so that one starting with a dash is not an option.
	Pathspecs []string
	// LiteralPathspecs makes every pathspec a plain path
	// (--literal-pathspecs): no wildcard and no ":" magic, so any name
	// matches only itself.
	LiteralPathspecs bool
}

// TreePair is two trees to compare, From before To.
type TreePair struct{ From, To string }

// DiffTree lists the paths that differ between the trees from and to, in
// one `git diff-tree`. It always compares the whole depth (-r), one path
// per change (--no-renames: a rename would pair two paths in one entry and
// depend on the user's diff.renames), NUL-terminated (-z).
//
// Trees the runner holds are compared here, without git (see diffHeld).
func (r *Runner) DiffTree(ctx context.Context, from, to string, opts DiffTreeOptions) ([]DiffEntry, error) {
	if res, ok := r.diffHeld(ctx, []TreePair{{from, to}}, opts); ok {
		return res[0], nil
	}
	args := diffTreeArgs(opts, false)
	args = append(args, from, to)
	out, err := r.Run(ctx, Cmd{Args: appendPathspecs(args, opts.Pathspecs)})
	if err != nil {
		return nil, err
	}
	var entries []DiffEntry
	recs := SplitNUL(out)
	for len(recs) > 0 {
		e, rest, err := nextDiffEntry(recs, opts.Format)
		if err != nil {
			return nil, err
		}
		entries, recs = append(entries, e), rest
	}
	return entries, nil
}

// DiffTrees compares each pair as DiffTree does, all in one
// `git diff-tree --stdin`, and returns the differences of pairs[i] at i.
// The ids must be full object ids: git repeats each pair before its
// entries, and that echo is how the output is split.
//
// The pairs with a tree the runner holds are compared here, without a
// diff-tree (see diffHeld); git compares the others.
func (r *Runner) DiffTrees(ctx context.Context, pairs []TreePair, opts DiffTreeOptions) ([][]DiffEntry, error) {
	res := make([][]DiffEntry, len(pairs))
	// Every tree a command wrote, aside or not, it holds (Trees): the
	// pairs of which neither tree is held compare older objects, and git
	// compares them at once (Cmd.Older) while a write aside goes on. The
	// others, if diffHeld cannot compare them, wait for it. A rewind's
	// classification of its journal's windows so runs beside the write
	// of its scan's pack.
	var held, older, newer []int
	for i, p := range pairs {
		if r.Trees.walkable(p) {
			held = append(held, i)
		} else {
			older = append(older, i)
		}
	}
	if got, ok := r.diffHeld(ctx, subset(pairs, held), opts); ok {
		for k, i := range held {
			res[i] = got[k]
		}
	} else {
		newer = held
	}
	if !r.Aside.Pending() {
		if err := r.diffTreesByGit(ctx, res, pairs, append(older, newer...), opts, false); err != nil {
			return nil, err
		}
		return res, nil
	}
	olderErr := make(chan error, 1)
	go func() { olderErr <- r.diffTreesByGit(ctx, res, pairs, older, opts, true) }()
	err := r.diffTreesByGit(ctx, res, pairs, newer, opts, false)
	if err := errors.Join(<-olderErr, err); err != nil {
		return nil, err
	}
	return res, nil
}

// subset is the pairs at the indexes idx, in that order.
func subset(pairs []TreePair, idx []int) []TreePair {
	out := make([]TreePair, len(idx))
	for k, i := range idx {
		out[k] = pairs[i]
	}
	return out
}

// diffTreesByGit compares the pairs at the indexes idx in one `git
// diff-tree --stdin`, into res at the same indexes; older is Cmd.Older.
func (r *Runner) diffTreesByGit(ctx context.Context, res [][]DiffEntry, pairs []TreePair, idx []int, opts DiffTreeOptions, older bool) error {
	if len(idx) == 0 {
		return nil
	}
	asked := subset(pairs, idx)
	var in strings.Builder
	for _, p := range asked {
		fmt.Fprintf(&in, "%s %s\n", p.From, p.To)
	}
	out, err := r.Run(ctx, Cmd{Args: appendPathspecs(diffTreeArgs(opts, true), opts.Pathspecs), Stdin: []byte(in.String()), Older: older})
	if err != nil {
		return err
	}
	got, err := parseDiffTrees(string(out), asked, opts.Format)
	if err != nil {
		return err
	}
	for k, i := range idx {
		res[i] = got[k]
	}
	return nil
}

// diffTreeArgs builds diff-tree's options, in the order git-checkpoint has
// always given them.
func diffTreeArgs(opts DiffTreeOptions, stdin bool) []string {
	var args []string
	if opts.LiteralPathspecs {
		args = append(args, "--literal-pathspecs")
	}
	args = append(args, "diff-tree")
	if stdin {
		args = append(args, "--stdin")
	}
	args = append(args, "-r", "-z", "--no-renames")
	if opts.Filter != "" {
		args = append(args, "--diff-filter="+opts.Filter)
	}
	switch opts.Format {
	case DiffNameStatus:
		args = append(args, "--name-status")
	case DiffNameOnly:
		args = append(args, "--name-only")
	}
	return args
}

func appendPathspecs(args, specs []string) []string {
	if len(specs) == 0 {
		return args
	}
	return append(append(args, "--"), specs...)
}

// parseDiffTrees splits the output of diff-tree --stdin: each input line
// ("FROM TO") comes back before the NUL-terminated entries of that pair.
// A pair whose echo does not come next is not taken for one, so a path
// that looks like a pair's echo stays a path.
func parseDiffTrees(s string, pairs []TreePair, format DiffFormat) ([][]DiffEntry, error) {
	res := make([][]DiffEntry, len(pairs))
	k := -1
	for len(s) > 0 {
		if k+1 < len(pairs) {
			head := pairs[k+1].From + " " + pairs[k+1].To
			if strings.HasPrefix(s, head+"\n") || strings.HasPrefix(s, head+"\x00") {
				k++
				s = s[len(head)+1:]
				continue
			}
		}
		n := 1
		if format != DiffNameOnly {
			n = 2
		}
		recs := strings.SplitN(s, "\x00", n+1)
		if len(recs) <= n {
			return nil, fmt.Errorf("git diff-tree --stdin: unterminated entry %q", s)
		}
		s = recs[n]
		if k < 0 {
			return nil, fmt.Errorf("git diff-tree --stdin: an entry before the first pair: %q", recs[0])
		}
		e, _, err := nextDiffEntry(recs[:n], format)
		if err != nil {
			return nil, err
		}
		res[k] = append(res[k], e)
	}
	return res, nil
}

// nextDiffEntry reads the entry at the start of recs (NUL-separated
// fields) and returns the fields after it. A raw entry is
// ":<old mode> <mode> <old id> <id> <status>" and then its path; a
// name-status entry the status and the path; a name-only entry the path.
func nextDiffEntry(recs []string, format DiffFormat) (DiffEntry, []string, error) {
	switch format {
	case DiffNameOnly:
		return DiffEntry{Path: recs[0]}, recs[1:], nil
	case DiffNameStatus:
		if len(recs) < 2 {
			return DiffEntry{}, nil, fmt.Errorf("git diff-tree: a status without a path: %q", recs[0])
		}
		return DiffEntry{Status: recs[0], Path: recs[1]}, recs[2:], nil
	}
	meta, ok := strings.CutPrefix(recs[0], ":")
	f := strings.Fields(meta)
	if !ok || len(f) != 5 || len(recs) < 2 {
		return DiffEntry{}, nil, fmt.Errorf("git diff-tree: unexpected entry %q", recs[0])
	}
	e := DiffEntry{OldMode: f[0], Mode: f[1], OldOID: f[2], OID: f[3], Status: f[4], Path: recs[1]}
	return e, recs[2:], nil
}

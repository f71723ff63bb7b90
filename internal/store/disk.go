package store

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/git-checkpoint/git-checkpoint/internal/git"
)

// DiskUsage measures, in the repository whose common directory is
// commonDir, the objects reachable from this working tree's
// checkpoints and from no other ref (branches, tags, remotes, stash, HEAD,
// other worktrees' HEADs): the disk a prune followed by git gc would give
// back. A loose object takes whole filesystem blocks, often ten times its
// compressed size for the small files agents write, so it counts by its
// blocks; a packed one by its size in the pack (rev-list --disk-usage
// counts loose objects by size and said 145 KiB where they took 13 MB).
func (s *Store) DiskUsage(ctx context.Context, commonDir string) (int64, error) {
	out, err := s.Git.Run(ctx, git.Cmd{Args: []string{"rev-list", "--objects", "--no-object-names",
		"--glob=" + s.RefPrefix + "*", "--not", "--exclude=refs/checkpoints/*", "--all"}})
	if err != nil {
		return 0, err
	}
	ids := strings.Fields(string(out))
	if len(ids) == 0 {
		return 0, nil
	}
	var total int64
	var packed []string
	objects := filepath.Join(commonDir, "objects")
	for _, id := range ids {
		var st syscall.Stat_t
		if len(id) > 2 && syscall.Lstat(filepath.Join(objects, id[:2], id[2:]), &st) == nil {
			total += st.Blocks * 512
		} else {
			packed = append(packed, id)
		}
	}
	if len(packed) == 0 {
		return total, nil
	}
	out, err = s.Git.Run(ctx, git.Cmd{Args: []string{"cat-file", "--batch-check=%(objectsize:disk)"},
		Stdin: []byte(strings.Join(packed, "\n") + "\n")})
	if err != nil {
		return 0, err
	}
	for _, f := range strings.Fields(string(out)) {
		n, err := strconv.ParseInt(f, 10, 64)
		if err == nil {
			total += n
		}
	}
	return total, nil
}

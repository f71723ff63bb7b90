package git

import (
	"bufio"
	"bytes"
	"context"
	"strconv"
	"strings"
)

// CountObjects counts the repository's loose objects and its packs (`git
// count-objects -v`, which reads the object directories and opens no
// object).
func (r *Runner) CountObjects(ctx context.Context) (loose, packs int, err error) {
	out, err := r.Run(ctx, Cmd{Args: []string{"count-objects", "-v"}})
	if err != nil {
		return 0, 0, err
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "count: "); ok {
			loose, err = strconv.Atoi(v)
		} else if v, ok := strings.CutPrefix(sc.Text(), "packs: "); ok {
			packs, err = strconv.Atoi(v)
		}
		if err != nil {
			return 0, 0, err
		}
	}
	return loose, packs, nil
}

// PackLoose stores the repository's loose objects in a pack, and rolls
// the small packs up with it, by `git repack -d -l --geometric=2`: each
// pack kept holds at least twice the objects of the next smaller one, so
// the packs stay few (a logarithm of the objects). The packs named in keep
// (the large ones) are left as they are whatever that rule says, so the
// cost stays that of the small ones. The loose objects are found by
// listing their directories, not by walking history, so the cost follows
// the loose objects and not the repository. Nothing is pruned and no
// object is deleted but a loose or packed copy of one now in the new
// pack: this is not gc. No bitmap (incompatible with a partial repack) and
// no server info are written.
func (r *Runner) PackLoose(ctx context.Context, keep []string) error {
	args := []string{"repack", "-d", "-l", "-n", "-q", "--geometric=2", "--no-write-bitmap-index"}
	for _, k := range keep {
		args = append(args, "--keep-pack="+k)
	}
	_, err := r.Run(ctx, Cmd{Args: args})
	return err
}

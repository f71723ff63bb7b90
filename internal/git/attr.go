package git

import (
	"context"
	"fmt"
)

// AnyAttributes reports whether any attribute (set, unset or with a
// value) applies to any of paths, from any source git reads: the working
// tree's .gitattributes files, those of index ("" for the real index),
// info/attributes, core.attributesFile and the system's. One `git
// check-attr -a -z --stdin`.
func (r *Runner) AnyAttributes(ctx context.Context, index string, paths []string) (bool, error) {
	if len(paths) == 0 {
		return false, nil
	}
	in, err := nulTerminated(paths)
	if err != nil {
		return false, fmt.Errorf("git check-attr: %w", err)
	}
	out, err := r.Run(ctx, Cmd{Args: []string{"check-attr", "-a", "-z", "--stdin"}, Index: index, Stdin: in})
	return len(out) > 0, err
}

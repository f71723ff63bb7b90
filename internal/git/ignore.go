package git

import (
	"context"
	"strings"
)

// IgnoredUntracked returns those of paths (from the top of the tree) that
// git's ignore rules ignore and the real index does not hold: git ignores
// no tracked file. env, when set, is added to both git calls (another work
// tree whose rules apply).
//
// check-ignore reads its paths as pathspecs, where a leading ":" is magic
// and literal pathspecs are refused: "./" keeps each a plain path, and
// comes back as it was given. It runs with --no-index, because against an
// index it scans all of it for every path (a cost that grows with the
// tree times the paths); the few paths that match a rule are then looked up
// in the real index.
func (r *Runner) IgnoredUntracked(ctx context.Context, paths []string, env []string) (map[string]bool, error) {
	var in strings.Builder
	for _, p := range paths {
		in.WriteString("./" + p + "\x00")
	}
	out, err := r.Run(ctx, Cmd{Args: []string{"check-ignore", "--no-index", "-z", "--stdin"}, Env: env, Stdin: []byte(in.String())})
	if err != nil && !NoMatch(err) {
		return nil, err
	}
	ignored := map[string]bool{}
	var matched []string
	for _, p := range strings.Split(string(out), "\x00") {
		if p = strings.TrimPrefix(p, "./"); p != "" {
			ignored[p] = true
			matched = append(matched, p)
		}
	}
	if len(matched) == 0 {
		return ignored, nil
	}
	tracked, err := r.Tracked(ctx, matched, env)
	if err != nil {
		return nil, err
	}
	for p := range tracked {
		delete(ignored, p)
	}
	return ignored, nil
}

// Tracked returns those of paths (files, from the top of the tree) that the
// real index holds, in one ls-files with literal pathspecs. env is added to
// the call as for IgnoredUntracked.
func (r *Runner) Tracked(ctx context.Context, paths []string, env []string) (map[string]bool, error) {
	tracked := map[string]bool{}
	if len(paths) == 0 {
		return tracked, nil
	}
	out, err := r.Run(ctx, Cmd{Args: append([]string{"--literal-pathspecs", "ls-files", "-z", "--"}, paths...), Env: env})
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, p := range paths {
		want[p] = true
	}
	for _, p := range strings.Split(string(out), "\x00") {
		if want[p] {
			tracked[p] = true
		}
	}
	return tracked, nil
}

package git

import (
	"context"
	"maps"
	"slices"
	"strings"
)

// IgnoredUntracked returns those of paths (from the top of the tree) that
// git's ignore rules ignore and the real index does not hold: git ignores
// no tracked file. env, when set, is added to both git calls (another work
// tree whose rules apply). The few paths that match a rule (Ignored) are
// looked up in the real index.
func (r *Runner) IgnoredUntracked(ctx context.Context, paths []string, env []string) (map[string]bool, error) {
	ignored, err := r.Ignored(ctx, paths, env)
	if err != nil || len(ignored) == 0 {
		return ignored, err
	}
	tracked, err := r.Tracked(ctx, slices.Sorted(maps.Keys(ignored)), env)
	if err != nil {
		return nil, err
	}
	for p := range tracked {
		delete(ignored, p)
	}
	return ignored, nil
}

// Ignored returns those of paths (from the top of the tree) that git's
// ignore rules ignore, whether the real index holds them or not: for
// paths the caller knows it does not (IgnoredUntracked asks the others).
//
// check-ignore reads its paths as pathspecs, where a leading ":" is magic
// and literal pathspecs are refused: "./" keeps each a plain path, and
// comes back as it was given. It runs with --no-index, because against an
// index it scans all of it for every path (a cost that grows with the
// tree times the paths).
func (r *Runner) Ignored(ctx context.Context, paths []string, env []string) (map[string]bool, error) {
	ignored := map[string]bool{}
	if len(paths) == 0 {
		return ignored, nil
	}
	var in strings.Builder
	for _, p := range paths {
		in.WriteString("./" + p + "\x00")
	}
	out, err := r.Run(ctx, Cmd{Args: []string{"check-ignore", "--no-index", "-z", "--stdin"}, Env: env, Stdin: []byte(in.String())})
	if err != nil && !NoMatch(err) {
		return nil, err
	}
	for _, p := range strings.Split(string(out), "\x00") {
		if p = strings.TrimPrefix(p, "./"); p != "" {
			ignored[p] = true
		}
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

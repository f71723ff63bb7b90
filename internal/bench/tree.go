package bench

import "path/filepath"

// Tree is a cached synthetic repository of the default shape, for the
// benchmarks outside this package (internal/bench/session): the same tree
// `make bench` measures, built once by the same builder.
type Tree struct{ fx *fixture }

// OpenTree returns the default-shape tree of files files under cache,
// building it first if it is not there (see openFixture). env is the
// environment git runs with (Env); logf hears of a build.
func OpenTree(cache string, files int, env []string, logf func(string, ...any)) (*Tree, error) {
	fx, err := openFixture(cache, shapeFor("default", files), env, logf)
	if err != nil {
		return nil, err
	}
	return &Tree{fx: fx}, nil
}

// Dir is the tree's top directory.
func (t *Tree) Dir() string { return t.fx.dir }

// Reset brings the tree back to its built state: no checkpoints, no
// store, tracked files as committed, untracked files as generated.
func (t *Tree) Reset() error { return t.fx.reset() }

// File is the path of file i (0 <= i < files) from the top of the tree,
// and whether it is tracked (one in a hundred is left untracked).
func (t *Tree) File(i int) (path string, tracked bool) {
	return filepath.FromSlash(t.fx.shape.path(i)), !t.fx.shape.untracked(i)
}

// Env is the environment `make bench` runs its commands with: the
// directories bins first on PATH, home as HOME, and none of the caller's
// git configuration (benchEnv).
func Env(environ []string, home string, bins ...string) []string {
	return benchEnv(environ, home, bins...)
}

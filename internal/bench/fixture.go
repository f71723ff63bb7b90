package bench

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// Shape is what a synthetic repository looks like. The same shape always
// gives the same files, so a cached repository can be reused by every run
// and every machine measures the same tree.
type Shape struct {
	Name    string // "default" or "wide" (wide.go)
	Files   int    // files in the working tree that are not ignored
	Ignored int    // files under the ignored build/ directory
	Seed    uint64 // content seed
	// Flat puts every leaf directory straight under src/ (5,000 siblings
	// at 100,000 files) instead of three levels deep.
	Flat bool
	// Uniform draws sizes uniformly from 1 to 8 KiB instead of the
	// log-uniform spread of a source tree.
	Uniform bool
	// Turns is how many agent turns the journal holds before the first
	// measurement (each a turn start, tool captures and a turn end).
	Turns int
	// Real names a tree that exists (real.go): goroot, node_modules or
	// kubernetes. Its files are what was installed, not generated; Files
	// is counted once the tree is built.
	Real  bool
	words []string
}

// shapeFor is the named shape for n files.
func shapeFor(name string, n int) Shape {
	if name == "wide" {
		return wideShape(n)
	}
	if isReal(name) {
		return Shape{Name: name, Real: true}
	}
	return Shape{Name: "default", Files: n, Ignored: n / 10, Seed: 1, words: vocabulary(1)}
}

// generator is bumped whenever the layout or content below changes, so a
// cached repository of an older layout is never measured as this one.
const generator = "v3"

func (s Shape) key() string {
	if s.Real {
		return realKey(s.Name)
	}
	if s.Name == "wide" {
		return fmt.Sprintf("repo-%s-wide-f%d-i%d-s%d-t%d", generator, s.Files, s.Ignored, s.Seed, s.Turns)
	}
	return fmt.Sprintf("repo-%s-f%d-i%d-s%d", generator, s.Files, s.Ignored, s.Seed)
}

// filesPerDir and the three directory levels give a tree with the nesting
// of a real source tree: 100k files are 5,000 leaf directories under 500
// and 50 parents.
const filesPerDir = 20

// path is the path of file i, from the top of the tree.
func (s Shape) path(i int) string {
	leaf := i / filesPerDir
	if s.Flat {
		return fmt.Sprintf("src/d%04d/f%06d.txt", leaf, i)
	}
	return fmt.Sprintf("src/t%02d/m%d/l%d/f%06d.txt", leaf/100, (leaf/10)%10, leaf%10, i)
}

// untracked reports whether file i is left untracked: one in a hundred.
func (s Shape) untracked(i int) bool { return i%100 == 50 }

func (s Shape) ignoredPath(i int) string {
	return fmt.Sprintf("build/o%03d/x%06d.o", i/50, i)
}

// content is file i's deterministic text. Sizes follow a log-uniform
// distribution from 128 bytes to 32 KiB (median 2 KiB, mean 5.9 KiB,
// 10% under 230 bytes, 10% over 18 KiB), close to a real source tree's:
// Go's own src/ has a median of 1.8 KiB and deciles of 0.3 and 18 KiB.
// File size matters to the comparison, since the fresh-index method hashes
// every byte and a scan with a stat cache hashes none.
func (s Shape) content(i int) []byte {
	r := rand.New(rand.NewPCG(s.Seed, uint64(i)))
	n := int(128 * math.Pow(256, r.Float64()))
	if s.Uniform {
		n = 1024 + r.IntN(7*1024)
	}
	var b bytes.Buffer
	b.Grow(n + 32)
	fmt.Fprintf(&b, "// file %d\n", i)
	for b.Len() < n {
		b.WriteString(s.words[r.IntN(len(s.words))])
		if r.IntN(12) == 0 {
			b.WriteByte('\n')
		} else {
			b.WriteByte(' ')
		}
	}
	b.WriteByte('\n')
	return b.Bytes()
}

// vocabulary is a fixed list of 4,096 random words, so that generating
// 600 MB of text draws one random number per word, not per byte.
func vocabulary(seed uint64) []string {
	r := rand.New(rand.NewPCG(seed, 0))
	out := make([]string, 4096)
	for i := range out {
		w := make([]byte, 2+r.IntN(9))
		for k := range w {
			w[k] = byte('a' + r.IntN(26))
		}
		out[i] = string(w)
	}
	return out
}

// tracked lists the indexes of the tracked files, in order.
func (s Shape) tracked() []int {
	out := make([]int, 0, s.Files)
	for i := 0; i < s.Files; i++ {
		if !s.untracked(i) {
			out = append(out, i)
		}
	}
	return out
}

// fixture is a synthetic or real repository on disk.
type fixture struct {
	shape Shape
	dir   string
	env   []string
	// Of a real tree: every file that is not ignored, tracked or not (the
	// files the cases edit), and the content of those an edit changed,
	// read before it did, or absent (the .gitignore a tree may lack).
	pool   []string
	saved  map[string][]byte
	absent map[string]bool
}

// files are the paths the cases edit: the tracked files of a synthetic
// tree, every file a checkpoint holds of a real one.
func (f *fixture) files() []string {
	if f.shape.Real {
		return f.pool
	}
	var out []string
	for _, i := range f.shape.tracked() {
		out = append(out, f.shape.path(i))
	}
	return out
}

// original is the content p has in the built tree.
func (f *fixture) original(p string) ([]byte, error) {
	if !f.shape.Real {
		if p == ".gitignore" {
			return []byte(fixtureIgnore), nil
		}
		var i int
		fmt.Sscanf(path.Base(p), "f%06d.txt", &i)
		return f.shape.content(i), nil
	}
	if b, ok := f.saved[p]; ok {
		return b, nil
	}
	if f.absent[p] {
		return nil, fs.ErrNotExist
	}
	b, err := os.ReadFile(filepath.Join(f.dir, p))
	if errors.Is(err, fs.ErrNotExist) {
		// Remembered, so that a file a case creates there is never
		// taken for the original.
		if f.absent == nil {
			f.absent = map[string]bool{}
		}
		f.absent[p] = true
	}
	if err != nil {
		return nil, err
	}
	if f.saved == nil {
		f.saved = map[string][]byte{}
	}
	f.saved[p] = b
	return b, nil
}

// openFixture returns the cached repository of shape under cache, building
// it first if it is not there. Building writes into a temporary directory
// that is renamed into place at the end, so an interrupted build is never
// taken for a finished one.
func openFixture(cache string, shape Shape, env []string, logf func(string, ...any)) (*fixture, error) {
	dir := filepath.Join(cache, shape.key())
	f := &fixture{shape: shape, dir: dir, env: env}
	if _, err := os.Stat(filepath.Join(dir, ".git", "bench-ready")); err == nil {
		return f, f.loadPool()
	}
	logf("building %s (once; cached for later runs)", dir)
	tmp := dir + ".tmp"
	if err := os.RemoveAll(tmp); err != nil {
		return nil, err
	}
	b := &fixture{shape: shape, dir: tmp, env: env}
	build := b.build
	if shape.Real {
		build = func() error { return b.buildReal(cache) }
	}
	if err := build(); err != nil {
		return nil, fmt.Errorf("building %s: %w", dir, err)
	}
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return nil, err
	}
	return f, f.loadPool()
}

// fixtureIgnore is the top .gitignore of the synthetic shapes.
const fixtureIgnore = "/build/\n"

func (f *fixture) build() error {
	s := f.shape
	if err := writeFile(filepath.Join(f.dir, ".gitignore"), []byte(fixtureIgnore)); err != nil {
		return err
	}
	for i := 0; i < s.Files; i++ {
		if !s.untracked(i) {
			if err := writeFile(filepath.Join(f.dir, s.path(i)), s.content(i)); err != nil {
				return err
			}
		}
	}
	for i := 0; i < s.Ignored; i++ {
		if err := writeFile(filepath.Join(f.dir, s.ignoredPath(i)), s.content(s.Files+i)); err != nil {
			return err
		}
	}
	// Packed like a real repository, and never repacked behind the
	// benchmark's back: a background gc would slow whichever case it
	// overlaps.
	for _, args := range [][]string{
		{"init", "-q"},
		{"config", "gc.auto", "0"},
		{"add", "-A"},
		{"commit", "-q", "-m", "synthetic tree " + s.key()},
		{"gc", "-q"},
	} {
		if _, err := f.git(nil, args...); err != nil {
			return err
		}
	}
	if err := f.writeUntracked(); err != nil {
		return err
	}
	if err := f.recordJournal(); err != nil {
		return err
	}
	if err := f.keepPacks(); err != nil {
		return err
	}
	return writeFile(filepath.Join(f.dir, ".git", "bench-ready"), []byte(s.key()+"\n"))
}

func (f *fixture) writeUntracked() error {
	for i := 0; i < f.shape.Files; i++ {
		if f.shape.untracked(i) {
			p := filepath.Join(f.dir, f.shape.path(i))
			want := f.shape.content(i)
			if have, err := os.ReadFile(p); err == nil && bytes.Equal(have, want) {
				continue
			}
			if err := writeFile(p, want); err != nil {
				return err
			}
		}
	}
	return nil
}

// reset brings the repository back to its built state, whatever an
// earlier (possibly interrupted) run left: no checkpoints, no state
// directory, tracked files as committed, untracked files as generated, and
// a refreshed real index.
func (f *fixture) reset() error {
	out, err := f.git(nil, "for-each-ref", "--format=delete %(refname)", "refs/checkpoints/")
	if err != nil {
		return err
	}
	if len(out) > 0 {
		if _, err := f.git(out, "update-ref", "--stdin"); err != nil {
			return err
		}
	}
	if err := os.RemoveAll(filepath.Join(f.dir, ".git", "checkpoints")); err != nil {
		return err
	}
	if err := f.restoreJournal(); err != nil {
		return err
	}
	if err := f.dropRivals(); err != nil {
		return err
	}
	if f.shape.Real {
		if err := f.resetReal(); err != nil {
			return err
		}
	} else {
		for _, args := range [][]string{{"reset", "-q", "--hard"}, {"clean", "-fdq"}} {
			if _, err := f.git(nil, args...); err != nil {
				return err
			}
		}
		if err := f.writeUntracked(); err != nil {
			return err
		}
	}
	// Earlier runs' checkpoints leave loose objects that nothing reaches.
	// Past 3,000 of them a capture no longer packs (checkpoint.packEvery
	// skips a repository that needs git gc), so a run after many others
	// would measure captures that never pack: drop them first.
	out, err = f.git(nil, "count-objects")
	if err != nil {
		return err
	}
	if n, _ := strconv.Atoi(strings.Fields(string(out))[0]); n > 3000 {
		if _, err := f.git(nil, "prune", "--expire=now"); err != nil {
			return err
		}
	}
	if err := f.dropPacks(); err != nil {
		return err
	}
	if err := f.fanOut(); err != nil {
		return err
	}
	_, err = f.git(nil, "status", "--porcelain")
	return err
}

// The packs of a built fixture are its baseline: every capture writes a
// pack, and earlier runs' packs, which nothing reaches once reset drops
// their refs, made every object lookup of a later run search more of them
// (113 packs in a 100,000-file fixture after a few runs, and a rewind
// measurably slower). keepPacks marks the baseline with a .keep file each,
// so that no capture's repack rolls one up, and reset removes every pack
// without one (dropPacks). A fixture with no .keep (built before the
// baseline existed) is packed once (gc), and that is its baseline.

// packDir is the fixture's pack directory.
func (f *fixture) packDir() string { return filepath.Join(f.dir, ".git", "objects", "pack") }

// keepPacks marks the packs there are now as the baseline.
func (f *fixture) keepPacks() error {
	packs, err := filepath.Glob(filepath.Join(f.packDir(), "pack-*.pack"))
	for _, p := range packs {
		if err == nil {
			err = writeFile(strings.TrimSuffix(p, ".pack")+".keep", nil)
		}
	}
	return err
}

// unkeepPacks removes the .keep files keepPacks made.
func (f *fixture) unkeepPacks() error {
	keeps, err := filepath.Glob(filepath.Join(f.packDir(), "pack-*.keep"))
	for _, k := range keeps {
		if err == nil {
			err = os.Remove(k)
		}
	}
	return err
}

// dropPacks removes the packs that are not the baseline, with their
// index, reverse index and other files.
func (f *fixture) dropPacks() error {
	entries, err := os.ReadDir(f.packDir())
	if err != nil {
		return err
	}
	kept := map[string]bool{}
	for _, e := range entries {
		if base, ok := strings.CutSuffix(e.Name(), ".keep"); ok {
			kept[base] = true
		}
	}
	if len(kept) == 0 {
		if _, err := f.git(nil, "gc", "-q", "--prune=now"); err != nil {
			return err
		}
		return f.keepPacks()
	}
	for _, e := range entries {
		base, _, _ := strings.Cut(e.Name(), ".")
		if strings.HasPrefix(base, "pack-") && !kept[base] {
			if err := os.Remove(filepath.Join(f.packDir(), e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// fanOut makes the 256 directories git keeps loose objects in, which gc
// and prune remove when they empty them. A repository in use has them: in
// one just packed, each of a session's first objects that falls in a
// missing one makes it, so a run after a prune would time that
// once-per-repository cost in its first rounds.
func (f *fixture) fanOut() error {
	for i := range 256 {
		if err := os.MkdirAll(filepath.Join(f.dir, ".git", "objects", fmt.Sprintf("%02x", i)), 0o755); err != nil {
			return err
		}
	}
	return nil
}

// git runs git in the fixture and returns its output.
func (f *fixture) git(stdin []byte, args ...string) ([]byte, error) {
	return runQuiet(f.dir, f.env, stdin, "git", args...)
}

func writeFile(path string, data []byte) error {
	err := os.WriteFile(path, data, 0o644)
	if errors.Is(err, fs.ErrNotExist) {
		if err = os.MkdirAll(filepath.Dir(path), 0o755); err == nil {
			err = os.WriteFile(path, data, 0o644)
		}
	}
	return err
}

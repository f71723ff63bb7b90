package capture

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/durable"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/gitformat"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// Tree splicing: a tree that differs from a base tree in a few named paths
// is built by reading only the base's trees along those paths, putting the
// paths' new entries into copies of them and writing the copies back. Its
// cost follows the number of paths, not the size of the tree. A partial
// capture (SnapshotPaths) splices into the newest checkpoint's tree; a
// scan's deferred updates (deferUpdates) into the private index's.

// named is one path a splice brings up to date.
type named struct {
	path    string // from the top, slash-separated
	present bool   // a regular file or a symlink is there now
	size    int64  // of a regular file
	base    gitformat.Entry
	inBase  bool // the base tree holds a blob there
	entry   gitformat.Entry
	skip    bool // left as the base has it (ignored, skip-worktree, too big)
	known   bool // entry is known already; no need to hash the file
	fi      fs.FileInfo
}

// count adds the path's change to ch, against before (had false when the
// path was absent before).
func (it *named) count(ch *store.Changes, before gitformat.Entry, had bool) {
	switch {
	case had && !it.present:
		ch.Deleted++
	case !had && it.present:
		ch.Added++
	case had && it.entry != before:
		ch.Modified++
	}
}

// splice is the base's trees along the named paths, which write changes.
type splice struct {
	c      *Capturer
	hexLen int // of the repository's object ids
	items  []*named
	trees  map[string]map[string]gitformat.Entry // by directory, "" the root
	// seal, when set, gives the objects that go into the pack written
	// aside beside the new tree (a sealed commit: seal.go).
	seal func(root string) []git.Object
}

// probe looks at what is at rel now, refusing (ok false) anything but a
// regular file, a symlink or nothing, reached through real directories
// that are not nested repositories.
func (c *Capturer) probe(rel string) (*named, bool) {
	it := &named{path: rel}
	dir := c.Repo.Top
	comps := strings.Split(rel, "/")
	for _, comp := range comps[:len(comps)-1] {
		dir = filepath.Join(dir, comp)
		fi, err := os.Lstat(dir)
		if errors.Is(err, fs.ErrNotExist) {
			return it, true // the whole directory is gone
		}
		if err != nil || !fi.IsDir() {
			return nil, false
		}
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return nil, false
		}
	}
	fi, err := os.Lstat(filepath.Join(c.Repo.Top, rel))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return it, true
	case err != nil:
		return nil, false
	case fi.Mode().IsRegular():
		it.present, it.size, it.fi = true, fi.Size(), fi
		return it, true
	case fi.Mode()&fs.ModeSymlink != 0:
		it.present, it.fi = true, fi
		return it, true
	}
	return nil, false
}

// newSplice reads, in one `git cat-file --batch`, the base tree root's
// tree of every directory on the way to each named path, and notes each
// path's entry in the base. It reports false, for a full scan instead,
// when root is gone or a blob or submodule is where a directory must be
// or a directory or submodule is named.
func (c *Capturer) newSplice(ctx context.Context, root string, items []*named) (*splice, bool, error) {
	hexLen := len(root)
	var dirs []string
	want := map[string]bool{"": true}
	dirs = append(dirs, "")
	for _, it := range items {
		for d := path.Dir(it.path); d != "."; d = path.Dir(d) {
			if !want[d] {
				want[d] = true
				dirs = append(dirs, d)
			}
		}
	}
	bodies, err := c.readTrees(ctx, root, dirs)
	if err != nil {
		return nil, false, err
	}
	raw := map[string]map[string]gitformat.Entry{}
	for _, d := range dirs {
		// Not a tree, or none: the parent's entry decides.
		if body, ok := bodies[d]; ok {
			if raw[d], err = gitformat.ParseTree(body, hexLen/2); err != nil {
				return nil, false, err
			}
		}
	}
	if raw[""] == nil {
		return nil, false, nil // the base tree is gone: scan instead
	}
	// Keep only the directories the base really holds as trees, walking
	// from the root, and find each path's base entry.
	trees := map[string]map[string]gitformat.Entry{"": raw[""]}
	for _, it := range items {
		parent := ""
		comps := strings.Split(it.path, "/")
		for i, comp := range comps {
			entries := trees[parent]
			if entries == nil {
				break // a directory the base does not have
			}
			e, ok := entries[comp]
			if i == len(comps)-1 {
				if ok && e.IsBlob() {
					it.base, it.inBase = e, true
				} else if ok && it.present {
					return nil, false, nil // a directory or submodule becomes a file
				} else if ok {
					return nil, false, nil // a directory or submodule is named: scan
				}
				break
			}
			dir := path.Join(parent, comp)
			switch {
			case !ok:
			case e.IsTree() && raw[dir] != nil:
				trees[dir] = raw[dir]
			default:
				return nil, false, nil // a file or submodule on the way
			}
			parent = dir
		}
	}
	return &splice{c: c, hexLen: hexLen, items: items, trees: trees}, true, nil
}

// hashNamed stores the present items' content through a temporary index
// that holds only them (seeded with their base entries, as the private
// index holds them), and reads back their entries. It returns the
// temporary index, which the caller removes, or "" when no item needed
// hashing. Where the files' bytes are their blobs (may, the caller's
// mayConvert, false), the files are hashed here instead (hashOwn). Either
// way the new blobs are returned for the caller to store with its trees
// (splice.write). hexLen is the length of the repository's object ids.
func (c *Capturer) hashNamed(ctx context.Context, items []*named, may bool, hexLen int) (string, []git.Object, error) {
	if !may {
		if blobs, ok := c.hashOwn(items, hexLen); ok {
			return "", blobs, nil
		}
	}
	index := c.Store.PartialIndex()
	os.Remove(index)
	// git writes the blobs aside, unsynced, and they go into the pack
	// with the trees (git.Runner.ScratchObjects); one a killed capture
	// left there goes now.
	g, objects, aside := c.Git, c.Store.Path("partial-objects"), false
	os.RemoveAll(objects)
	if s, ok := c.Git.ScratchObjects(objects); ok && os.Mkdir(objects, 0o777) == nil {
		g, aside = s, true
		defer os.RemoveAll(objects)
	}
	got, err := c.hashInto(ctx, g, index, items, true)
	if got == nil || err != nil {
		if err == nil {
			index = ""
		}
		return index, nil, err
	}
	var blobs []git.Object
	if aside {
		if blobs, err = c.readScratch(objects, got); err != nil {
			return index, nil, err
		}
	}
	for _, it := range items {
		if it.skip || !it.present || it.known {
			continue
		}
		if e, ok := got[it.path]; ok {
			it.entry = e
		} else {
			it.present = false // gone since it was looked at
		}
	}
	return index, blobs, nil
}

// readScratch reads the objects git wrote into the scratch object
// directory dir (git.Runner.ScratchObjects) for the entries got, for the
// caller to store with its trees: an entry whose object is not there
// names one the repository holds already. Those a pack should not hold
// in memory (over maxPackedFile, or past maxPackedBytes in all, as
// hashOwn) go into the repository loose, as git would have written
// them (adoptLoose).
func (c *Capturer) readScratch(dir string, got map[string]gitformat.Entry) ([]git.Object, error) {
	var out []git.Object
	seen := map[string]bool{}
	var total int64
	for _, e := range got {
		if seen[e.OID] || len(e.OID) < 3 {
			continue
		}
		seen[e.OID] = true
		data, err := os.ReadFile(filepath.Join(dir, e.OID[:2], e.OID[2:]))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		} else if err != nil {
			return nil, err
		}
		_, size, err := gitformat.LooseHeader(data)
		if err != nil {
			return nil, fmt.Errorf("%s, as git wrote it aside: %w", e.OID, err)
		}
		if size > maxPackedFile || total+size > maxPackedBytes {
			if err := c.adoptLoose(e.OID, data); err != nil {
				return nil, err
			}
			continue
		}
		kind, body, err := gitformat.ParseLoose(data)
		if err != nil {
			return nil, fmt.Errorf("%s, as git wrote it aside: %w", e.OID, err)
		}
		total += size
		out = append(out, git.Object{ID: e.OID, Type: kind, Body: body})
	}
	return out, nil
}

// adoptLoose puts a loose object file's bytes (data, as git wrote them
// aside) under id in the repository's object directory, synced before
// and after its rename, as git's pinned core.fsync would have written
// it: for an object too big to be held and packed (readScratch). One
// there already is left as it is. Its directory, and the data of one
// found there (another git's, perhaps unsynced), are synced with the
// checkpoint (git.Written.Have).
func (c *Capturer) adoptLoose(id string, data []byte) error {
	if c.Git.Objects == "" || len(id) < 3 {
		return fmt.Errorf("no object directory to store %s in", id)
	}
	defer c.Git.Written.Begin()()
	defer c.Git.Written.Have(id)
	dir := filepath.Join(c.Git.Objects, id[:2])
	final := filepath.Join(dir, id[2:])
	if _, err := os.Stat(final); err == nil {
		return nil
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return err
	}
	return durable.Replace(final, data, durable.How{Perm: 0o444, Sync: true, Racing: true})
}

// hashInto stores the content of the present items not known yet with
// `git update-index --add --remove --replace` on the temporary index at
// index (seeded with their base entries when seed is set), and returns
// the entries git gave them: nil when no item needed hashing; an item
// missing from the result was gone when git looked.
func (c *Capturer) hashInto(ctx context.Context, g *git.Runner, index string, items []*named, seed bool) (map[string]gitformat.Entry, error) {
	args := []string{"update-index", "--add", "--remove", "--replace"}
	var paths []string
	for _, it := range items {
		if it.skip || !it.present || it.known {
			continue
		}
		if seed && it.inBase {
			args = append(args, "--cacheinfo", strings.TrimPrefix(it.base.Mode, "0")+","+it.base.OID+","+it.path)
		}
		paths = append(paths, it.path)
	}
	if len(paths) == 0 {
		return nil, nil
	}
	// A file git refuses to add is stored as it is (addPaths).
	if err := c.addPaths(ctx, g, index, args, paths); err != nil {
		return nil, err
	}
	entries, err := g.LsStage(ctx, index)
	if err != nil {
		return nil, err
	}
	got := map[string]gitformat.Entry{}
	for _, e := range entries {
		got[e.Path] = gitformat.Entry{Mode: e.Mode, OID: e.OID}
	}
	return got, nil
}

// write applies the named paths to the base's trees and writes every tree
// that changed, deepest first, with blobs (hashNamed's, not stored yet):
// in one pack when there are blobs or packMin trees or more, else loose
// (git.WriteLoose). The ids are computed here (a parent names its
// children's ids before git has printed them), and both ways store the
// bodies as they are, which TestEncodeTreeAgreesWithMktree keeps the
// trees mktree would write. When the
// new root is one of known (trees that exist, with every tree and blob
// below them), nothing is written. A splice is written once: its trees
// are changed in place.
func (s *splice) write(ctx context.Context, known []string, blobs []git.Object) (string, error) {
	trees := s.trees
	dirty := map[string]bool{"": true}
	for _, it := range s.items {
		if it.skip {
			continue
		}
		dir, name := path.Dir(it.path), path.Base(it.path)
		if dir == "." {
			dir = ""
		}
		if !it.present {
			if entries := trees[dir]; entries != nil && it.inBase {
				delete(entries, name)
			}
		} else {
			for d := dir; d != ""; d = parentOf(d) {
				if trees[d] == nil {
					trees[d] = map[string]gitformat.Entry{}
				}
			}
			trees[dir][name] = it.entry
		}
		for d := dir; ; d = parentOf(d) {
			dirty[d] = true
			if d == "" {
				break
			}
		}
	}
	order := make([]string, 0, len(dirty))
	for d := range dirty {
		order = append(order, d)
	}
	slices.SortFunc(order, func(a, b string) int {
		if da, db := depth(a), depth(b); da != db {
			return db - da
		}
		return strings.Compare(a, b)
	})
	var objs []git.Object
	root := ""
	for _, d := range order {
		entries := trees[d]
		name := path.Base(d)
		parent := trees[parentOf(d)]
		if d != "" && len(entries) == 0 {
			delete(parent, name) // git stores no empty directories
			continue
		}
		body, err := gitformat.EncodeTree(entries)
		if err != nil {
			return "", err
		}
		oid := gitformat.ID("tree", body, s.hexLen)
		objs = append(objs, git.Object{ID: oid, Type: "tree", Body: body})
		if d == "" {
			root = oid
		} else {
			parent[name] = gitformat.Entry{Mode: "40000", OID: oid}
		}
	}
	if slices.Contains(known, root) {
		s.keep(objs)
		return root, nil
	}
	if g := s.c.group; g != nil {
		g.add(append(blobs, objs...)...)
		s.keep(objs)
		return root, nil
	}
	if s.c.WriteAside && s.c.Git.Aside != nil {
		// Held before git has them: what reads them meanwhile reads
		// them here (git.Trees), and every other git process waits.
		s.keep(objs)
		all, sha256 := append(blobs, unique(objs)...), s.hexLen == 64
		if s.seal != nil {
			all = append(all, s.seal(root)...)
		}
		s.c.Git.Aside.Go(func() error { return s.c.Git.WritePack(ctx, all, sha256) })
		return root, nil
	}
	if objs := unique(objs); len(blobs) > 0 || len(objs) >= packMin {
		if err := s.c.Git.WritePack(ctx, append(blobs, objs...), s.hexLen == 64); err != nil {
			return "", err
		}
		s.keep(objs)
		return root, nil
	}
	// Few trees and no blob: loose, each synced before its name (see
	// git.WriteLoose: git mktree, which wrote them, never synced them).
	if err := s.c.Git.WriteLoose(ctx, unique(objs), s.hexLen == 64); err != nil {
		return "", err
	}
	s.keep(objs)
	return root, nil
}

// keep hands the trees written to the runner's held trees: a rewind
// compares the safety checkpoint's tree, made of them, with its target.
func (s *splice) keep(trees []git.Object) {
	for _, o := range trees {
		s.c.Git.Trees.Keep(o.ID, o.Body)
	}
}

func parentOf(d string) string {
	p := path.Dir(d)
	if p == "." {
		return ""
	}
	return p
}

func depth(d string) int {
	if d == "" {
		return 0
	}
	return strings.Count(d, "/") + 1
}

// fewTrees is how many directories are read by path from the root in one
// batch: git then reads every tree on the way again for each, which costs
// little for a few, while a level-by-level read by id (git.ReadTrees)
// waits for git once per level.
const fewTrees = 16

// readTrees returns the bodies of the trees at dirs in root; see
// git.ReadTrees.
func (c *Capturer) readTrees(ctx context.Context, root string, dirs []string) (map[string][]byte, error) {
	if bodies, ok := c.heldTrees(root, dirs); ok {
		return bodies, nil
	}
	if len(dirs) > fewTrees {
		return c.Git.ReadTrees(ctx, root, dirs)
	}
	reqs := make([]string, len(dirs))
	for i, d := range dirs {
		reqs[i] = root
		if d != "" {
			reqs[i] = root + ":" + d
		}
	}
	objs, err := c.Git.CatFile(ctx, reqs)
	if err != nil {
		return nil, err
	}
	bodies := map[string][]byte{}
	for i, d := range dirs {
		if objs[i].Type == "tree" {
			bodies[d] = objs[i].Body
		}
	}
	return bodies, nil
}

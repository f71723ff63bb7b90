package capture

import (
	"context"
	"os"
	"path"
	"path/filepath"

	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/gitformat"
)

// Parallel tool calls fire their hooks at once, and each capture waits
// for the store lock while the one before it runs: ten per-tool captures
// take ten times the part of one that holds the lock. Hashing the files a
// tool call named needs no lock (it reads the tree and writes blobs, which
// nothing can clobber), so a hook hashes them before it waits
// (Capturer.Prehash), and the capture under the lock takes those entries
// for the files whose stat data did not change since, hashing only the
// others.

// Prehash holds the entries of files hashed before the lock.
type Prehash struct {
	entries map[string]prehashed // by path from the top
}

type prehashed struct {
	entry gitformat.Entry
	stat  string // statKey of the file when it was hashed
	// body is the blob's content when the tool hashed the file itself
	// (a plain tree: Capturer.Plain), which the capture stores with its
	// trees; nil when git stored it.
	body []byte
}

// Prehash hashes the regular files and symlinks among paths (absolute or
// from the top of the tree) into the repository, as the per-tool capture
// would, and returns their entries; nil when there is nothing it can do
// for them (the capture then hashes them itself). It never fails: any
// problem leaves the hashing to the capture.
func (c *Capturer) Prehash(ctx context.Context, paths []string) *Prehash {
	if len(paths) == 0 || len(paths) > MaxOnly {
		return nil
	}
	var items []*named
	seen := map[string]bool{}
	for _, p := range paths {
		rel, inside, ok := c.fromTop(p)
		if !ok || !inside || seen[rel] {
			continue
		}
		seen[rel] = true
		if name := path.Base(rel); name == ".gitignore" || name == ".gitattributes" {
			return nil // the capture scans the whole tree
		}
		if it, ok := c.probe(rel); ok && it.present && it.size <= c.Cfg.MaxFileBytes {
			items = append(items, it)
		}
	}
	if len(items) == 0 {
		return nil
	}
	if c.Plain() && !c.attributesOnPath(pathsOf(items)) {
		return c.prehashOwn(items)
	}
	dir, err := os.MkdirTemp("", "git-checkpoint-prehash-")
	if err != nil {
		return nil
	}
	defer os.RemoveAll(dir)
	got, err := c.hashInto(ctx, c.Git, filepath.Join(dir, "index"), items, false)
	if err != nil || got == nil {
		return nil
	}
	pre := &Prehash{entries: map[string]prehashed{}}
	for _, it := range items {
		// The stat data from before the hashing: a write during it
		// changes them, and the capture then hashes the file again.
		if e, ok := got[it.path]; ok {
			if key := statKey(it.fi); key != "" {
				pre.entries[it.path] = prehashed{entry: e, stat: key}
			}
		}
	}
	return pre
}

// prehashOwn is Prehash in a plain tree: the blobs are the files' bytes,
// read here and stored by the capture with its trees, in one pack
// (splice.write), where update-index, ls-files and mktree were three git
// processes of every per-tool capture. Their ids are computed under the
// lock, which knows the repository's hash (apply).
func (c *Capturer) prehashOwn(items []*named) *Prehash {
	pre := &Prehash{entries: map[string]prehashed{}}
	for _, it := range items {
		key := statKey(it.fi)
		if key == "" || it.size > maxPackedFile {
			continue
		}
		body, mode, err := readEntry(filepath.Join(c.Repo.Top, filepath.FromSlash(it.path)), it.fi)
		if err != nil {
			continue
		}
		pre.entries[it.path] = prehashed{entry: gitformat.Entry{Mode: mode}, stat: key, body: body}
	}
	return pre
}

// pathsOf is the items' paths.
func pathsOf(items []*named) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.path
	}
	return out
}

// blobs are the bodies of the prehashed items' blobs that the tool
// hashed itself and their base does not hold, to store.
func (p *Prehash) blobs(items []*named) []git.Object {
	if p == nil {
		return nil
	}
	var out []git.Object
	for _, it := range items {
		pre, ok := p.entries[it.path]
		if !ok || pre.body == nil || !it.known || it.entry != pre.entry || (it.inBase && it.base.OID == pre.entry.OID) {
			continue
		}
		out = append(out, git.Object{ID: pre.entry.OID, Type: "blob", Body: pre.body})
	}
	return out
}

// apply gives the items the entries hashed before the lock, for the files
// still as they were then. One the base holds under another mode is left
// to be hashed again, seeded with the base's entry: with core.fileMode or
// core.symlinks false, git keeps the mode the index has, which a hash
// without it cannot know. The entries the tool hashed itself (prehashOwn)
// hold only while the tree is still plain (plain: no attributes file has
// appeared on their path since, and git's configuration converts nothing);
// otherwise git hashes those files again.
func (p *Prehash) apply(items []*named, hexLen int, plain bool) {
	if p == nil {
		return
	}
	for _, it := range items {
		pre, ok := p.entries[it.path]
		if !ok || it.skip || !it.present || it.known || statKey(it.fi) != pre.stat {
			continue
		}
		if (it.inBase && it.base.Mode != pre.entry.Mode) || (pre.body != nil && !plain) {
			continue
		}
		if pre.body != nil && pre.entry.OID == "" {
			pre.entry.OID = gitformat.ID("blob", pre.body, hexLen)
			p.entries[it.path] = pre
		}
		it.entry, it.known = pre.entry, true
	}
}

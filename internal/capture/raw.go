package capture

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/git-checkpoint/git-checkpoint/internal/config"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/gitformat"
)

// The raw overlay keeps files byte for byte where git's conversions would
// not give them back. A checkpoint's tree holds what `git add` stores (clean
// filters, end-of-line normalization, LFS pointers), so that it compares
// with HEAD and with other checkpoints as git sees them. But a checkout of
// that tree is not always the bytes that were on disk: a CRLF file under
// `* text=auto` comes back with LF, an `ident` file gets its $Id$ expanded,
// a filter whose smudge does not undo its clean changes the content. For
// such files the capture also keeps the raw bytes, in an overlay tree
// (path -> raw blob) that the checkpoint commit holds as an extra parent,
// and a rewind writes those bytes instead of the checkout's.
//
// Whether a file is such a file depends on its bytes alone: it is when
// they are not its blob's (updateRaw). A rewind writes every other file
// as its blob's bytes, whatever the settings and attributes say then, so
// nothing depends on what they say at the rewind (invariant 10). This
// runs only for files whose blob or bytes changed (the scan's, those a
// re-seed changed, the first capture's), and only when git may have
// converted them (attributes files that may convert, core.autocrlf /
// core.eol), so a repository without them pays nothing. LFS needs no overlay: its smudge
// gives back what its clean took, so its pointers stay as LFS stores them.

// rawEntry is a file kept raw, and the stat data it had then, to notice a
// change the scan would not report (after the private index is re-seeded).
type rawEntry struct {
	OID   string `json:"oid"`
	Mode  string `json:"mode"`
	Size  int64  `json:"size"`
	Mtime int64  `json:"mtime"`
	Ino   uint64 `json:"ino"`
}

// Plain reports whether a checkout of any file of this tree is its
// blob's bytes, with the mode its entry names: git may convert nothing
// (no attributes file outside the tree, none in it that may convert as
// the last scan found them; no core.autocrlf or core.eol asking); modes always follow
// the disk (core.fileMode and core.symlinks are pinned on). A rewind, right after its scan, then writes
// files from their blobs itself (restore.Applier.Plain).
func (c *Capturer) Plain() bool {
	return !c.mayConvert(c.loadState())
}

// attributesOnPath reports whether a .gitattributes that may convert
// (attributesConvert) is in a directory on the way to one of paths (from
// the top), the root's included: the files of the tree that can govern
// them. A partial capture asks it,
// since the state knows only the attributes files a scan has seen, and
// one made since (by a shell command) could convert the named files.
func (c *Capturer) attributesOnPath(paths []string) bool {
	seen := map[string]bool{}
	for _, p := range paths {
		for d := path.Dir(p); ; d = path.Dir(d) {
			if d == "." {
				d = ""
			}
			if !seen[d] {
				seen[d] = true
				f := filepath.Join(c.Repo.Top, filepath.FromSlash(d), ".gitattributes")
				if _, err := os.Lstat(f); err == nil && attributesConvert(f) {
					return true
				}
			}
			if d == "" {
				break
			}
		}
	}
	return false
}

// mayConvert reports whether git may convert files of this tree at all.
func (c *Capturer) mayConvert(st *indexState) bool {
	if st.Attrs || c.Cfg.EOL || len(st.Raw) > 0 {
		return true
	}
	for _, p := range c.attributesFiles() {
		if _, err := os.Stat(p); err == nil {
			return true
		}
	}
	return false
}

// attributesFiles are the attributes files outside the tree that git reads:
// the repository's, the user's and, unless GIT_ATTR_NOSYSTEM is set, the
// system's.
func (c *Capturer) attributesFiles() []string {
	files := []string{filepath.Join(c.Repo.CommonDir, "info", "attributes")}
	if f := c.userFile(c.Cfg.AttributesFile, "attributes"); f != "" {
		files = append(files, f)
	}
	// git reads the system's file unless the variable is true; a value
	// it would refuse counts as reading it, the side that examines more.
	if v := git.Getenv(c.Git.Env, "GIT_ATTR_NOSYSTEM"); v != "" {
		if on, err := config.ParseBool(v); err == nil && on {
			return files
		}
	}
	return append(files, c.systemAttributes()...)
}

// systemAttributesFiles are where git may keep the system's attributes
// file: $(sysconfdir)/gitattributes, /etc for a git installed under /usr
// (a distribution's), $(prefix)/etc for one built from source under
// /usr/local. git 2.39 cannot be asked which (git var GIT_ATTR_SYSTEM came
// later), so both count: a stray one only makes a capture examine more.
var systemAttributesFiles = []string{"/etc/gitattributes", "/usr/local/etc/gitattributes"}

func (c *Capturer) systemAttributes() []string {
	if c.sysAttrs != nil {
		return c.sysAttrs
	}
	return systemAttributesFiles
}

// userFile is where git reads one of the user's own files: the path a
// core.* setting gives (configured), else name under git's directory in
// the user's configuration directory; "" when there is none.
func (c *Capturer) userFile(configured, name string) string {
	switch xdg := git.Getenv(c.Git.Env, "XDG_CONFIG_HOME"); {
	case configured != "":
		if rest, ok := strings.CutPrefix(configured, "~/"); ok {
			return filepath.Join(git.Getenv(c.Git.Env, "HOME"), rest)
		}
		return configured
	case xdg != "":
		return filepath.Join(xdg, "git", name)
	case git.Getenv(c.Git.Env, "HOME") != "":
		return filepath.Join(git.Getenv(c.Git.Env, "HOME"), ".config", "git", name)
	}
	return ""
}

// convRules fingerprints the conversion rules that come from outside the
// tree's files: core.autocrlf and core.eol, and the attributes files
// outside the tree. A change there can make a file git considers clean
// differ from what a checkout of it writes, which no scan reports; so can
// a change of a .gitattributes in the tree, which the scan reports.
func (c *Capturer) convRules() string {
	var b strings.Builder
	b.WriteString(c.Cfg.Conversion)
	for _, p := range c.attributesFiles() {
		b.WriteString(p + " " + fingerprint(p) + "\n")
	}
	return b.String()
}

// examineAll examines every file of index as updateRaw does a changed
// one: at the first capture, whose private index was seeded with blobs
// nobody examined, or when the state knows no tree to compare the new
// one with. removed are paths the capture took out of index, whose raw
// bytes go too.
func (c *Capturer) examineAll(ctx context.Context, st *indexState, index string, removed []string, hexLen int) error {
	entries, err := indexEntries(ctx, c.Git, index)
	if err != nil {
		return err
	}
	files := make([]string, 0, len(entries)+len(removed))
	for p := range entries {
		files = append(files, p)
	}
	c.updateRaw(ctx, st, entries, append(files, removed...), true, hexLen)
	return nil
}

// examineChanged brings the raw overlay up to date with the private
// index, whose tree is now tree, after a scan whose changes were changed:
// every file when there is no earlier tree to compare with (rawBase ""),
// else the changed paths, the files kept raw whose stat data changed,
// and, after a re-seed (seeded), every path whose entry the re-seed
// changed: a file whose bytes went back to what the real index holds is
// no change the scan reports, and one that became ignored left the tree.
func (c *Capturer) examineChanged(ctx context.Context, st *indexState, rawBase, tree string, seeded bool, changed []string) error {
	if rawBase == "" {
		return c.examineAll(ctx, st, c.PrivateIndex(), changed, len(tree))
	}
	if seeded && rawBase != tree {
		diff, err := c.Git.DiffTree(ctx, rawBase, tree, git.DiffTreeOptions{Format: git.DiffNameStatus})
		if err != nil {
			return err
		}
		for _, d := range diff {
			changed = append(changed, d.Path)
		}
	}
	if len(changed) == 0 && len(st.Raw) == 0 {
		return nil
	}
	entries, err := indexEntries(ctx, c.Git, c.PrivateIndex())
	if err != nil {
		return err
	}
	c.updateRaw(ctx, st, entries, changed, true, len(tree))
	return nil
}

// indexEntries are the stage-0 entries of index by path.
func indexEntries(ctx context.Context, g *git.Runner, index string) (map[string]gitformat.Entry, error) {
	if _, err := os.Stat(index); err != nil {
		return map[string]gitformat.Entry{}, nil // an empty private index
	}
	list, err := g.LsStage(ctx, index)
	if err != nil {
		return nil, err
	}
	out := make(map[string]gitformat.Entry, len(list))
	for _, e := range list {
		if e.Stage == 0 {
			out[e.Path] = gitformat.Entry{Mode: e.Mode, OID: e.OID}
		}
	}
	return out, nil
}

// rawCheck is the set of paths updateRaw examines: those in changed and,
// when all is set, every file kept raw whose stat data changed (a change
// the scan may not report: a file written back to what the private
// index holds).
func (c *Capturer) rawCheck(st *indexState, changed []string, all bool) []string {
	check := map[string]bool{}
	for _, p := range changed {
		check[p] = true
	}
	for p, e := range st.Raw {
		if !all {
			break
		}
		if fi, err := os.Lstat(filepath.Join(c.Repo.Top, p)); err != nil || statOf(fi) != [3]int64{e.Size, e.Mtime, int64(e.Ino)} {
			check[p] = true
		}
	}
	out := make([]string, 0, len(check))
	for p := range check {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// updateRaw is the one place that decides which files keep their raw
// bytes: a file does when its bytes on disk are not the bytes of the blob
// its entry in the snapshot's tree names (entries; a path missing there
// is not in the tree, and keeps nothing). That depends on the file and
// its blob alone, not on the settings and attributes in force at a
// rewind, which may have changed by then: a rewind writes every other
// file as its blob's bytes (restore.File.Exact). LFS files are left out:
// their blob is a pointer, which a rewind smudges back into what its
// clean took. It re-examines changed and, when all is set, the files
// kept raw whose stat data changed. It is best effort: a file it cannot
// read or store is captured as git stores it.
func (c *Capturer) updateRaw(ctx context.Context, st *indexState, entries map[string]gitformat.Entry, changed []string, all bool, hexLen int) {
	type found struct {
		path string
		fi   os.FileInfo
	}
	var differ []found
	for _, p := range c.rawCheck(st, changed, all) {
		if _, ok := st.Raw[p]; ok {
			delete(st.Raw, p)
			st.RawTree = ""
		}
		e, ok := entries[p]
		if !ok || (e.Mode != "100644" && e.Mode != "100755") {
			continue
		}
		full := filepath.Join(c.Repo.Top, filepath.FromSlash(p))
		fi, err := os.Lstat(full)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		body, _, err := readEntry(full, fi) // never waits on a FIFO swapped in
		if err != nil || gitformat.ID("blob", body, hexLen) == e.OID {
			continue
		}
		differ = append(differ, found{p, fi})
	}
	if len(differ) == 0 {
		return
	}
	paths := make([]string, len(differ))
	for i, d := range differ {
		paths[i] = d.path
	}
	lfs := c.lfsPaths(ctx, paths)
	paths = slices.DeleteFunc(paths, func(p string) bool { return lfs[p] })
	ids, _ := c.Git.WriteBlobs(ctx, paths) // a file it cannot store is not kept raw
	for _, d := range differ {
		if ids[d.path] == "" {
			continue
		}
		s := statOf(d.fi)
		if st.Raw == nil {
			st.Raw = map[string]rawEntry{}
		}
		st.Raw[d.path] = rawEntry{OID: ids[d.path], Mode: gitformat.FileMode(d.fi.Mode()), Size: s[0], Mtime: s[1], Ino: uint64(s[2])}
		st.RawTree = ""
	}
}

// lfsPaths are the paths among paths that the LFS filter stores.
func (c *Capturer) lfsPaths(ctx context.Context, paths []string) map[string]bool {
	lfs := map[string]bool{}
	attrs, err := c.Git.Run(ctx, git.Cmd{Args: []string{"check-attr", "-z", "--stdin", "filter"}, Index: c.PrivateIndex(), Stdin: nulList(paths)})
	if err != nil {
		return lfs
	}
	f := strings.Split(string(attrs), "\x00")
	for i := 0; i+2 < len(f); i += 3 { // path, attribute, value
		if f[i+2] == "lfs" {
			lfs[f[i]] = true
		}
	}
	return lfs
}

func statOf(fi os.FileInfo) [3]int64 {
	ino := int64(0)
	if s, ok := fi.Sys().(*syscall.Stat_t); ok {
		ino = int64(s.Ino)
	}
	return [3]int64{fi.Size(), fi.ModTime().UnixNano(), ino}
}

// rawTree writes the overlay as a tree, through a scratch index, or returns
// "" when no file is kept raw.
func (c *Capturer) rawTree(ctx context.Context, st *indexState) (string, error) {
	if len(st.Raw) == 0 {
		return "", nil
	}
	if st.RawTree != "" {
		return st.RawTree, nil
	}
	var entries []git.IndexEntry
	for p, e := range st.Raw {
		entries = append(entries, git.IndexEntry{Mode: e.Mode, OID: e.OID, Path: p})
	}
	index := c.Store.RawIndex()
	os.Remove(index)
	defer os.Remove(index)
	if err := c.Git.UpdateIndexInfo(ctx, index, entries); err != nil {
		return "", err
	}
	tree, err := c.Git.WriteTree(ctx, index)
	if err != nil {
		return "", err
	}
	st.RawTree = tree
	return st.RawTree, nil
}

// attributesDirs are the directories (slash-separated, "" the top) of
// the attributes files the scan found changed, made or removed.
func attributesDirs(entries []entry) []string {
	var dirs []string
	for _, e := range entries {
		p := strings.TrimSuffix(e.path, "/")
		if path.Base(p) != ".gitattributes" {
			continue
		}
		d := path.Dir(p)
		if d == "." {
			d = ""
		}
		dirs = append(dirs, d)
	}
	return dirs
}

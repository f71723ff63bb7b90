package capture

import (
	"bytes"
	"context"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/git-checkpoint/git-checkpoint/internal/config"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
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
// Whether a file is such a file is found by doing what a rewind would do:
// `checkout-index` of its captured entry into a scratch directory, and a
// comparison with the file. This runs only for files the capture found
// changed, and only when the repository can convert at all (it has
// attributes files, or core.autocrlf / core.eol ask for conversion), so a
// repository without them pays nothing. LFS needs no overlay: its smudge
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
// (no attributes file anywhere, in the tree as the last scan found it or
// outside it; no core.autocrlf or core.eol asking), and core.fileMode
// and core.symlinks are on. A rewind, right after its scan, then writes
// files from their blobs itself (restore.Applier.Plain).
func (c *Capturer) Plain() bool {
	return c.Cfg.StatModes && !c.mayConvert(c.loadState())
}

// attributesOnPath reports whether a .gitattributes is in a directory on
// the way to one of paths (from the top), the root's included: the
// files of the tree that can govern them. A partial capture asks it,
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
				if _, err := os.Lstat(filepath.Join(c.Repo.Top, filepath.FromSlash(d), ".gitattributes")); err == nil {
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
	if v := envOf(c.Git.Env, "GIT_ATTR_NOSYSTEM"); v != "" {
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
	switch xdg := envOf(c.Git.Env, "XDG_CONFIG_HOME"); {
	case configured != "":
		if rest, ok := strings.CutPrefix(configured, "~/"); ok {
			return filepath.Join(envOf(c.Git.Env, "HOME"), rest)
		}
		return configured
	case xdg != "":
		return filepath.Join(xdg, "git", name)
	case envOf(c.Git.Env, "HOME") != "":
		return filepath.Join(envOf(c.Git.Env, "HOME"), ".config", "git", name)
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
// one: once under each set of conversion rules (at the first capture, and
// after they change), since files that never change are never examined
// otherwise. LFS files are left out: their smudge gives back what their
// clean took, and it may have to download. removed are paths the capture
// took out of index, whose raw bytes go too.
func (c *Capturer) examineAll(ctx context.Context, st *indexState, index string, removed []string) error {
	entries, err := c.Git.LsStage(ctx, index)
	if err != nil {
		return err
	}
	var files []string
	for _, e := range entries {
		if e.Mode == "100644" || e.Mode == "100755" {
			files = append(files, e.Path)
		}
	}
	if len(files) == 0 {
		c.updateRaw(ctx, st, index, removed, true)
		return nil
	}
	attrs, err := c.Git.Run(ctx, git.Cmd{Args: []string{"check-attr", "-z", "--stdin", "filter"}, Index: index, Stdin: nulList(files)})
	if err != nil {
		return err
	}
	lfs := map[string]bool{}
	f := strings.Split(string(attrs), "\x00")
	for i := 0; i+2 < len(f); i += 3 { // path, attribute, value
		if f[i+2] == "lfs" {
			lfs[f[i]] = true
		}
	}
	files = slices.DeleteFunc(files, func(p string) bool { return lfs[p] })
	c.updateRaw(ctx, st, index, append(files, removed...), true)
	return nil
}

func envOf(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], name+"="); ok {
			return v
		}
	}
	return ""
}

// updateRaw re-examines the files in changed, and (when all is set) every
// file kept raw whose stat data changed, and keeps raw those a checkout of
// their entries in index would not give back. It is best effort: a file it
// cannot examine (a smudge filter that fails) is captured as git stores
// it, as before.
func (c *Capturer) updateRaw(ctx context.Context, st *indexState, index string, changed []string, all bool) {
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
	var paths []string
	for p := range check {
		if _, ok := st.Raw[p]; ok {
			delete(st.Raw, p)
			st.RawTree = ""
		}
		if fi, err := os.Lstat(filepath.Join(c.Repo.Top, p)); err == nil && fi.Mode().IsRegular() {
			paths = append(paths, p)
		}
	}
	if len(paths) == 0 || index == "" {
		return
	}
	slices.Sort(paths)
	scratch := c.Store.Path("rawcheck")
	os.RemoveAll(scratch)
	defer os.RemoveAll(scratch)
	// A path the index does not hold (a file grown past the size limit,
	// dropped from the tree) or whose smudge filter fails makes
	// checkout-index fail after writing the others: such a path has no
	// scratch copy and is not kept raw, and the others are examined.
	c.Git.CheckoutPaths(ctx, index, scratch+"/", paths)
	var differ []string
	for _, p := range paths {
		disk, err1 := os.ReadFile(filepath.Join(c.Repo.Top, p))
		out, err2 := os.ReadFile(filepath.Join(scratch, p))
		if err1 == nil && err2 == nil && !bytes.Equal(disk, out) {
			differ = append(differ, p)
		}
	}
	differ = append(differ, c.notCheckedOut(ctx, index, scratch, paths)...)
	ids, _ := c.Git.WriteBlobs(ctx, differ) // a file it cannot store is not kept raw
	for _, p := range differ {
		fi, err := os.Lstat(filepath.Join(c.Repo.Top, p))
		if err != nil || ids[p] == "" {
			continue
		}
		mode := fileMode(fi.Mode())
		s := statOf(fi)
		if st.Raw == nil {
			st.Raw = map[string]rawEntry{}
		}
		st.Raw[p] = rawEntry{OID: ids[p], Mode: mode, Size: s[0], Mtime: s[1], Ino: uint64(s[2])}
		st.RawTree = ""
	}
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
	index := c.Store.Path("rawindex")
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

// touchesAttributes reports whether the scan saw an attributes file.
func touchesAttributes(entries []entry) bool {
	for _, e := range entries {
		if filepath.Base(strings.TrimSuffix(e.path, "/")) == ".gitattributes" {
			return true
		}
	}
	return false
}

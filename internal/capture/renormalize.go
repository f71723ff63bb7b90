package capture

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/git"
)

// A checkpoint's tree holds what `git add` would store now. git hashes a
// file again only when its stat data changed, or when they are too new to
// trust (racily clean); so when the rules of conversion change (an
// attributes file made, changed or removed; core.autocrlf, core.eol or a
// filter's clean command set), a file that did not change keeps the blob
// the old rules gave it, and takes the new rules' blob the day git happens
// to hash it again. Two scans of an unchanged tree could then give two
// trees, and a plan made from the first be stale at the second. The
// capture that sees the rules change stores every file they govern again,
// as `git add --renormalize` does: an attributes file's directory, or the
// whole tree for a setting or an attributes file outside it. That is one
// hashing of those files, once per change of the rules, which are rare.

// renormalizeScope is the directories (slash-separated, "" the top) whose
// files this capture must store again: those of the attributes files the
// scan found changed (attrDirs), or the whole tree when the rules from
// outside it (rulesSeen) differ from those the last capture recorded.
// None at the first capture, which has nothing stored under older rules.
func renormalizeScope(st *indexState, attrDirs []string, rules string) []string {
	if st.Rules != "" && st.Rules != rules || slices.Contains(attrDirs, "") {
		return []string{""}
	}
	return attrDirs
}

// rulesSeen fingerprints the rules of conversion a capture cannot see in
// the tree: the settings and the attributes files outside it.
func (c *Capturer) rulesSeen() string {
	sum := sha256.Sum256([]byte(c.convRules()))
	return hex.EncodeToString(sum[:8])
}

// renormalize stores again every file of the private index under dirs,
// and returns the paths whose blob changed, which the raw overlay must
// examine again. update-index passes over an entry whose stat data match
// the file's, so the entries are first given no stat data (their mode and
// blob kept), and then added again as any changed file is (addPaths,
// which stores a file git refuses as it is). Killed between the two, the
// private index is left with entries no stat data vouch for, which the
// next scan hashes again.
func (c *Capturer) renormalize(ctx context.Context, dirs []string) ([]string, error) {
	if len(dirs) == 0 {
		return nil, nil
	}
	before, err := indexEntries(ctx, c.Git, c.PrivateIndex())
	if err != nil {
		return nil, err
	}
	var files []git.IndexEntry
	var paths []string
	for p, e := range before {
		if (e.Mode == "100644" || e.Mode == "100755") && under(p, dirs) {
			files = append(files, git.IndexEntry{Mode: e.Mode, OID: e.OID, Path: p})
			paths = append(paths, p)
		}
	}
	if len(paths) == 0 {
		return nil, nil
	}
	slices.Sort(paths)
	if err := c.Git.UpdateIndexInfo(ctx, c.PrivateIndex(), files); err != nil {
		return nil, err
	}
	if err := c.addPaths(ctx, c.Git, c.PrivateIndex(), []string{"update-index", "--add", "--remove", "--replace"}, paths); err != nil {
		return nil, err
	}
	after, err := indexEntries(ctx, c.Git, c.PrivateIndex())
	if err != nil {
		return nil, err
	}
	var changed []string
	for _, p := range paths {
		if after[p] != before[p] {
			changed = append(changed, p)
		}
	}
	return changed, nil
}

// under reports whether p is in one of dirs ("" the top).
func under(p string, dirs []string) bool {
	for _, d := range dirs {
		if d == "" || strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}

package capture

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// A capture with a file system monitor (checkpoint.fsmonitor) that finds
// nothing changed still costs a git status: git reads the whole private
// index, asks the monitor, refreshes and compares the index with HEAD,
// about half a plain status at 100,000 files. Most turn-boundary captures
// find nothing changed. So the scan's query saves the token the monitor
// gave it, and the next capture asks the monitor itself, from that token,
// before starting git: when the answer names no path, the tree is the one
// that scan (or the last such answer) left, and no git process runs.
//
// What the monitor does not watch must not have changed either: the
// private index's own inputs (the real index and info/exclude, see
// needsSeed), the settings and the files outside the tree that decide what
// a scan takes (monitorRules), and submodules, whose commits move in a
// git directory the monitor's query leaves out; a tree with submodules
// always scans.

// monitorState is what the last monitored scan saw (indexState.Monitor).
type monitorState struct {
	// Token is the monitor's token at the start of that scan.
	Token string `json:"token"`
	// Tree is the snapshot that scan made: the tree as of Token.
	Tree string `json:"tree"`
	// Skipped is what that snapshot left out, and why.
	Skipped []store.Skip `json:"skipped,omitempty"`
	// Rules fingerprints what else that scan depended on (monitorRules).
	Rules string `json:"rules"`
	// Hook is the monitor's hook that scan asked (core.fsmonitor): the
	// next capture asks it before discovery has read the configuration
	// (Early), and uses the answer only if the hook is still the same.
	Hook string `json:"hook,omitempty"`
}

// tokenFile is where the scan's query saves its token (git.TokenEnv).
func (c *Capturer) tokenFile() string { return c.Store.Path("fsmonitor.token") }

// monitorRules fingerprints the inputs of a scan that neither a monitor
// of the tree nor the stat check sees: the settings (what is too large,
// whether files may be converted), the conversion rules from outside the
// tree and the user's own ignore file.
func (c *Capturer) monitorRules() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%+v\n", c.Cfg)
	b.WriteString(c.convRules())
	if f := c.userFile(c.Cfg.ExcludesFile, "ignore"); f != "" {
		b.WriteString(f + " " + fingerprint(f) + "\n")
	}
	return b.String()
}

// unchanged returns the snapshot of a tree that did not change since the
// last scan, or false when a scan is needed: the monitor says so, from
// the last monitored scan's token, or, without a monitor, the stat check
// does, from the last whole scan's record (statcheck.go).
//
// With a monitor, a tree it says changed only at a few paths is also
// taken without a scan (named). A real index rewritten with the same
// entries (any git status of the person's or the agent's) changes
// neither answer (sameEntries).
func (c *Capturer) unchanged(ctx context.Context, st *indexState, j *store.Journal, b budget) (*Snapshot, bool) {
	real := st.Real
	if len(st.Gitlinks) > 0 || c.needsSeed(st) && !c.sameEntries(st) {
		return nil, false
	}
	prev := st.Tree
	if st.Result != "" {
		prev = st.Result
	}
	if prev == "" {
		return nil, false
	}
	var skipped []store.Skip
	switch m, r := st.Monitor, st.Stat; {
	case c.Git.Fsmonitor != nil && m != nil:
		if m.Rules != c.monitorRules() {
			return nil, false
		}
		since, ok := c.askSince(ctx, m)
		switch {
		case !ok:
			return nil, false
		case len(since.Paths) > 0:
			return c.named(ctx, st, j, m, since, b)
		}
		// m's tree, which named may have moved past the private index's.
		prev, skipped = m.Tree, m.Skipped
	case c.Git.Fsmonitor == nil && r != nil:
		if r.Tree != prev || r.Rules != c.monitorRules() || !c.statSame(st) {
			return nil, false
		}
	default:
		return nil, false
	}
	raw, err := c.rawTree(ctx, st)
	if err != nil {
		return nil, false
	}
	snap := &Snapshot{Tree: prev, Skipped: skipped, Raw: raw}
	last := j.Latest()
	snap.Known = last != nil && last.Tree == prev
	if st.Real != real {
		// Kept, or the next capture reads the real index again. (A
		// scan, or named, saves it on the other ways.)
		c.saveState(st)
	}
	return snap, true
}

// askSince asks the monitor what changed since m's token: the answer
// the early query got (Early), when it asked the hook the configuration
// names from that same token, or the hook now.
func (c *Capturer) askSince(ctx context.Context, m *monitorState) (git.Since, bool) {
	if e := c.Early; e != nil && e.query != nil {
		c.Early = nil
		if q, ok := e.answer(); ok && q.token == m.Token && q.hook == c.Git.Fsmonitor.Hook {
			return q.since, q.ok
		}
	}
	return c.Git.ChangedSince(ctx, m.Token)
}

// named is the snapshot of a tree the monitor says changed, since the
// last monitored scan (or the last such snapshot: m), only at the paths
// it names: m's tree with those paths brought up to date, as a per-tool
// capture brings the newest checkpoint's (partialOn), without a scan.
// An agent's turn end finds a few paths changed, its own tools' and
// their commands', and the scan of a large tree cost most of it
// (docs/speed.md, "Turn ends the monitor answers").
//
// It declines (false, and the caller scans) past MaxOnly paths, where
// the partial capture would (a .gitignore named, a directory deleted,
// anything not a file, a symlink or nothing, a nested repository), and
// where files may be converted or kept byte for byte (the raw overlay),
// whose state the monitor does not keep. A directory m's tree holds,
// which the monitor names as changed (its entries did), is no path to
// capture: the paths in it that changed are named too. A new directory
// is a scan's: what is in it is found by walking it, as git's monitored
// scan does (the monitor may not name a path it could not open, one
// past PATH_MAX), and a file it replaced must leave.
//
// The monitor's state then moves on to the answer's clock and the new
// tree, so the next question names only what changed since; the private
// index is left as it is, with its own token for the next scan.
func (c *Capturer) named(ctx context.Context, st *indexState, j *store.Journal, m *monitorState, since git.Since, b budget) (*Snapshot, bool) {
	if len(since.Paths) > MaxOnly || c.mayConvert(st) || len(st.Raw) > 0 || st.RawTree != "" {
		return nil, false
	}
	var files, dirs []string
	for _, p := range since.Paths {
		if fi, err := os.Lstat(filepath.Join(c.Repo.Top, filepath.FromSlash(p))); err == nil && fi.IsDir() {
			dirs = append(dirs, p)
		} else {
			files = append(files, p)
		}
	}
	if len(dirs) > 0 {
		held, err := c.Git.LsTree(ctx, m.Tree, git.LsTreeOptions{FullTree: true, Paths: dirs})
		if err != nil {
			return nil, false
		}
		trees := map[string]bool{}
		for _, e := range held {
			trees[e.Path] = e.Type == "tree"
		}
		for _, d := range dirs {
			if !trees[d] {
				return nil, false
			}
		}
	}
	base := &store.Record{Tree: m.Tree, Skipped: m.Skipped}
	var snap *Snapshot
	if len(files) == 0 {
		snap = &Snapshot{Tree: m.Tree, Skipped: m.Skipped}
	} else {
		var ok bool
		var err error
		if snap, ok, err = c.partialOn(ctx, base, files, nil, nil, b); err != nil || !ok {
			return nil, false
		}
	}
	snap.Partial = false // every path the monitor named, not some
	last := j.Latest()
	// Counted against m's tree: right only when that is the newest
	// checkpoint's; else Record counts against it.
	snap.Known = snap.Known && last != nil && last.Tree == m.Tree
	st.Monitor = &monitorState{Token: since.Clock, Tree: snap.Tree, Skipped: snap.Skipped, Rules: m.Rules, Hook: m.Hook}
	if err := c.saveState(st); err != nil {
		return nil, false
	}
	noun := "paths"
	if len(since.Paths) == 1 {
		noun = "path"
	}
	c.Git.Tracef("monitor: %d %s named since the last scan, brought up to date without a scan", len(since.Paths), noun)
	return snap, true
}

// scanToken reads and removes the token the scan's query saved: "" when
// it saved none (the hook failed, or no scan asked it).
func (c *Capturer) scanToken() string {
	b, err := os.ReadFile(c.tokenFile())
	os.Remove(c.tokenFile())
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// monitorEnv is the environment of the scan's git status with a monitor.
func (c *Capturer) monitorEnv() []string {
	os.Remove(c.tokenFile())
	return []string{git.TokenEnv(c.tokenFile())}
}

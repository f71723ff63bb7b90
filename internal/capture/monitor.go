package capture

import (
	"context"
	"fmt"
	"os"
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
// A real index rewritten with the same entries (any git status of the
// person's or the agent's) changes neither answer (sameEntries).
func (c *Capturer) unchanged(ctx context.Context, st *indexState, j *store.Journal) (*Snapshot, bool) {
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
		if m.Tree != prev || m.Rules != c.monitorRules() || !c.askUnchanged(ctx, m) {
			return nil, false
		}
		skipped = m.Skipped
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
		// Kept, or the next capture reads the real index again (a
		// scan saves it on the other way).
		c.saveState(st)
	}
	return snap, true
}

// askUnchanged asks the monitor whether anything changed since m's token:
// the answer the early query got (Early), when it asked the hook the
// configuration names from that same token, or the hook now.
func (c *Capturer) askUnchanged(ctx context.Context, m *monitorState) bool {
	if e := c.Early; e != nil && e.query != nil {
		c.Early = nil
		if q, ok := e.answer(); ok && q.token == m.Token && q.hook == c.Git.Fsmonitor.Hook {
			return q.unchanged
		}
	}
	return c.Git.Unchanged(ctx, m.Token)
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

// Package store keeps what git-checkpoint knows: checkpoint refs (which hold
// the objects), the journal (which is the record of every checkpoint, turn
// and rewind), and the lock that serializes writers of one working tree.
package store

import (
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/git"
)

// Record is one checkpoint as the journal records it and as --json prints
// it. Field names are part of the stable JSON contract.
type Record struct {
	ID      string    `json:"id"`
	N       int       `json:"n"`
	Commit  string    `json:"commit"`
	Tree    string    `json:"tree"`
	Head    string    `json:"head"`
	Branch  string    `json:"branch"`
	Reason  string    `json:"reason"`
	Turn    string    `json:"turn"`
	Session string    `json:"session"`
	Agent   string    `json:"agent"`
	Tool    string    `json:"tool,omitempty"`
	Paths   []string  `json:"paths,omitempty"`
	At      time.Time `json:"at"`
	Label   string    `json:"label"`
	// Prompt is what the person asked for at a turn's start (or, for
	// `git checkpoint run`, the command line), cut at MaxPrompt bytes.
	Prompt string `json:"prompt,omitempty"`
	// MCPRewind is checkpoint.mcpRewind as the hook read it, at a turn's
	// start and end (nil on other checkpoints): the model has a shell and
	// runs as the person, so nothing stops it from running `git config
	// --global checkpoint.mcpRewind true`; a change between a turn's start
	// and end is then told to the person (SwitchChanged).
	MCPRewind  *bool       `json:"mcp_rewind,omitempty"`
	Skipped    []Skip      `json:"skipped"`
	Submodules []Submodule `json:"submodules,omitempty"`
	Changes    Changes     `json:"changes"`
	Reused     bool        `json:"reused"`
	Partial    bool        `json:"partial,omitempty"`
	// Previous names the checkpoint taken before this one ("k6 <commit>").
	Previous string `json:"previous,omitempty"`
	// Raw is the overlay tree of files kept byte for byte because a
	// checkout of Tree would not give them back (see capture/raw.go).
	Raw string `json:"raw,omitempty"`
	// Verbatim says every file of Tree not in Raw was on disk as its
	// blob's bytes (an LFS pointer as what its smudge gives): a rewind
	// writes them so, whatever the settings and attributes say then.
	// Checkpoints made before kept raw only what a checkout under the
	// settings of the time would not give back, and are checked out.
	Verbatim bool `json:"verbatim,omitempty"`
	// Transcript and TranscriptAt locate the agent's conversation at this
	// checkpoint, for the resume command a rewind prints.
	Transcript   string `json:"transcript,omitempty"`
	TranscriptAt string `json:"transcript_at,omitempty"`
}

// Holds reports whether the checkpoint's files are tree with the raw
// overlay raw: what a rewind to it would leave on disk. Two checkpoints
// of one tree can hold other bytes (line endings git stores alike),
// which only their overlays tell apart; a capture that reuses a
// checkpoint and a rewind that looks for one that differs ask this.
func (r *Record) Holds(tree, raw string) bool { return r.Tree == tree && r.Raw == raw }

// Skip is a path a checkpoint did not capture, and why.
type Skip struct {
	Path   string `json:"path"`
	Bytes  int64  `json:"bytes,omitempty"`
	Reason string `json:"reason"` // too_big, too_big_total, unreadable, skip_worktree, nested_repo_without_commit
}

// Unheld reports whether the skip is of content on disk that the
// checkpoint could not hold (too big, unreadable, of a kind git cannot
// store, beyond PATH_MAX): a rewind can neither
// overwrite it safely nor bring it back, and leaves the path as it is.
func (s Skip) Unheld() bool {
	switch s.Reason {
	case SkipTooBig, SkipTooBigTotal, SkipUnreadable, SkipUnsupported, SkipPathTooLong, SkipWithheld:
		return true
	}
	return false
}

// Submodule is a gitlink recorded as the commit it was at.
type Submodule struct {
	Path   string `json:"path"`
	Commit string `json:"commit,omitempty"`
}

// Changes counts what a checkpoint changed against the one before it.
type Changes struct {
	Modified int `json:"modified"`
	Added    int `json:"added"`
	Deleted  int `json:"deleted"`
}

// Count counts a diff of two trees as a checkpoint's changes are counted:
// a path added, deleted, or changed in any other way (content, mode, type).
func Count(diff []git.DiffEntry) Changes {
	var c Changes
	for _, e := range diff {
		switch e.Status {
		case "A":
			c.Added++
		case "D":
			c.Deleted++
		default:
			c.Modified++
		}
	}
	return c
}

// Skip reasons.
const (
	SkipTooBig = "too_big"
	// SkipTooBigTotal is a new untracked file or directory left out of a
	// snapshot because the new content was over checkpoint.maxTotalBytes
	// (capture's budget); a rewind leaves it as it is, as a too_big one.
	SkipTooBigTotal  = "too_big_total"
	SkipUnreadable   = "unreadable" // the user cannot read it (a file or a directory)
	SkipSkipWorktree = "skip_worktree"
	SkipNestedRepo   = "nested_repo_without_commit"
	// SkipUnsupported is a path that is no file, symbolic link or
	// directory (a FIFO, a socket, a device), which git cannot store.
	SkipUnsupported = "unsupported_type"
	// SkipPathTooLong is a directory whose path is longer than the
	// system allows (PATH_MAX): git cannot open it, nor a rewind write it.
	SkipPathTooLong = "path_too_long"
	// SkipWithheld is a path a push left out of the copy of a checkpoint
	// it published, because a secret scanner flagged it (push
	// --withhold): the remote's checkpoint does not hold it, and a rewind
	// to it there leaves the path as it is.
	SkipWithheld = "withheld_secret"
)

// Reasons a checkpoint was taken.
const (
	ReasonManual    = "manual"
	ReasonPreRewind = "pre_rewind"
	ReasonRewind    = "rewind"
	// Agent hooks (DESIGN section 7): the turn boundaries and the tool
	// calls between them, from which whose-change classes are computed.
	ReasonTurnStart = "turn_start"
	ReasonTool      = "tool"
	ReasonTurnEnd   = "turn_end"
	ReasonCommit    = "commit" // git's post-commit hook (aider)
	// `git checkpoint run -- CMD`: a program's run counts as a turn.
	ReasonRunStart = "run_start"
	ReasonRunEnd   = "run_end"
)

// ByModel is Rewind.By for a rewind the model applied through the MCP
// server (git checkpoint mcp), which a person enabled but did not type.
const ByModel = "model"

// Rewind is what the journal records about a rewind: rewind_started is
// written after the safety checkpoint exists and before the first file is
// touched; rewind_ended when the tree is in its final state.
type Rewind struct {
	Target string `json:"target"`          // checkpoint id rewound to
	Commit string `json:"commit"`          // its commit
	Safety string `json:"safety"`          // the pre_rewind checkpoint id
	Plan   string `json:"plan"`            // p1-...
	Files  int    `json:"files"`           // paths in the plan
	Exact  *bool  `json:"exact,omitempty"` // rewind_ended only
	Error  string `json:"error,omitempty"` // rewind_ended after a failure
	Undo   bool   `json:"undo,omitempty"`  // this rewind was --undo
	// By says who applied the rewind when it was not a person at the
	// command line: ByModel for the model, through the MCP server.
	By string `json:"by,omitempty"`
	// InTheWay are the paths the rewind could not write because an
	// ignored file was there, which an undo must not take for ones it
	// created; InTheWayMore says there were more than fit, and then an
	// undo deletes none of the paths the rewind may have created.
	InTheWay     []string `json:"in_the_way,omitempty"`
	InTheWayMore bool     `json:"in_the_way_more,omitempty"`
	// With --reset-head: the ref moved (a branch, or HEAD when detached),
	// from which commit to which, and the tree of the real index before
	// it was reset, so that --undo can put all three back.
	HeadRef  string `json:"head_ref,omitempty"`
	HeadFrom string `json:"head_from,omitempty"`
	HeadTo   string `json:"head_to,omitempty"`
	Index    string `json:"index,omitempty"`
}

// SwitchChanged reports whether checkpoint.mcpRewind changed between a
// turn's start and end, as their events recorded it (Record.MCPRewind),
// and to what: a change made while the
// agent worked, which the person may not have made.
func SwitchChanged(start, end *bool) (on, changed bool) {
	if start == nil || end == nil {
		return false, false
	}
	return *end, *start != *end
}

// SwitchNote is what the person and the model are told of a change of
// checkpoint.mcpRewind during a turn.
func SwitchNote(turn string, on bool) string {
	if on {
		return "checkpoint.mcpRewind was turned on during turn " + turn + ": the model may now apply rewinds itself. " +
			"Only the person may turn it on; if they did not, 'git config --global --unset checkpoint.mcpRewind' turns it off"
	}
	return "checkpoint.mcpRewind was turned off during turn " + turn + ": the model plans rewinds, the person applies them"
}

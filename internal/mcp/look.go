package mcp

import (
	"context"
	"fmt"

	"github.com/git-checkpoint/git-checkpoint/internal/capture"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
	"github.com/git-checkpoint/git-checkpoint/internal/turns"
)

// defaultLimit is how many entries a list or a log gives without a limit,
// as on the command line.
const defaultLimit = 20

type checkpointIn struct {
	Label string `json:"label,omitempty" jsonschema:"a label to find the checkpoint by; a labelled checkpoint is taken even when nothing changed"`
}

// checkpoint takes one, as `git checkpoint -m LABEL` does.
func (s *Server) checkpoint(ctx context.Context, in checkpointIn) (any, error) {
	t, err := s.Open(ctx)
	if err != nil {
		return nil, err
	}
	unlock, err := t.Lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	j, err := t.Store.Journal()
	if err != nil {
		return nil, err
	}
	return t.Capture.Capture(ctx, j, capture.Options{Reason: store.ReasonManual, Label: in.Label, NoDedup: in.Label != ""})
}

type listIn struct {
	Limit   int    `json:"limit,omitempty" jsonschema:"at most this many, newest first (default 20)"`
	Session string `json:"session,omitempty" jsonschema:"only this agent session's (an id or a unique prefix)"`
}

// list is `git checkpoint list --json`.
func (s *Server) list(ctx context.Context, in listIn) (any, error) {
	t, err := s.Open(ctx)
	if err != nil {
		return nil, err
	}
	j, refs, err := t.Journal(ctx)
	if err != nil {
		return nil, err
	}
	return turns.List(j, refs, in.Session, limit(in.Limit))
}

type logIn struct {
	Limit   int    `json:"limit,omitempty" jsonschema:"at most this many turns, newest first (default 20)"`
	Session string `json:"session,omitempty" jsonschema:"only this agent session's turns (an id or a unique prefix)"`
}

// log is `git checkpoint log --json`.
func (s *Server) log(ctx context.Context, in logIn) (any, error) {
	t, err := s.Open(ctx)
	if err != nil {
		return nil, err
	}
	j, _, err := t.Journal(ctx)
	if err != nil {
		return nil, err
	}
	entries, err := turns.Log(ctx, t.Git, j, turns.LogOptions{Turns: limit(in.Limit), Session: in.Session})
	if err != nil {
		return nil, err
	}
	return turns.Document(entries), nil
}

func limit(n int) int {
	if n <= 0 {
		return defaultLimit
	}
	return n
}

type diffIn struct {
	From  string   `json:"from" jsonschema:"the checkpoint to compare from: k<n>, t<n>, @ or a commit"`
	To    string   `json:"to,omitempty" jsonschema:"the checkpoint to compare to (default: the working tree now)"`
	Paths []string `json:"paths,omitempty" jsonschema:"only these paths (files or directories)"`
}

// diffOut is the diff tool's document.
type diffOut struct {
	From string `json:"from"`
	To   string `json:"to"` // a checkpoint's id, or "" for the working tree
	Diff string `json:"diff"`
	// Truncated says Diff was cut at MaxDiff; Bytes is the whole diff's
	// size.
	Truncated bool `json:"truncated"`
	Bytes     int  `json:"bytes"`
}

// MaxDiff bounds the diff a model gets: a diff of a whole tree would fill
// its context and say less than the list of files does.
const MaxDiff = 64 << 10

// diff is the unified diff between two checkpoints, or a checkpoint and
// the tree now. Unlike `git checkpoint diff`, which is for a person and
// keeps their diff drivers, pager and colors, it is git's plain patch:
// what a program can read.
func (s *Server) diff(ctx context.Context, in diffIn) (any, error) {
	t, err := s.Open(ctx)
	if err != nil {
		return nil, err
	}
	j, refs, err := t.Journal(ctx)
	if err != nil {
		return nil, err
	}
	from, err := t.ResolveRecord(ctx, j, refs, in.From)
	if err != nil {
		return nil, err
	}
	out := diffOut{From: from.ID}
	to := ""
	if in.To != "" {
		r, err := t.ResolveRecord(ctx, j, refs, in.To)
		if err != nil {
			return nil, err
		}
		to, out.To = r.Tree, r.ID
	} else {
		unlock, err := t.Lock(ctx)
		if err != nil {
			return nil, err
		}
		snap, err := t.Capture.Snapshot(ctx, j)
		unlock()
		if err != nil {
			return nil, err
		}
		to = snap.Tree
	}
	args := []string{"diff-tree", "-p", "-r", "--no-renames", "--no-color", "--no-ext-diff", "--no-textconv", from.Tree, to, "--"}
	for _, p := range in.Paths {
		rel, err := t.Rel(p)
		if err != nil {
			return nil, err
		}
		args = append(args, ":(top,literal)"+rel)
	}
	w := &capped{max: MaxDiff}
	if _, err := t.Git.Run(ctx, git.Cmd{Args: args, Stdout: w}); err != nil {
		return nil, err
	}
	out.Diff, out.Bytes, out.Truncated = w.text(), w.n, w.n > MaxDiff
	return out, nil
}

// capped keeps the first max bytes written to it and counts the rest.
type capped struct {
	max, n int
	buf    []byte
}

func (c *capped) Write(p []byte) (int, error) {
	c.n += len(p)
	if room := c.max - len(c.buf); room > 0 {
		c.buf = append(c.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// text is what was kept: all of it, or its whole lines and a marker that
// says how much was cut.
func (c *capped) text() string {
	if c.n <= c.max {
		return string(c.buf)
	}
	kept := c.buf
	for len(kept) > 0 && kept[len(kept)-1] != '\n' {
		kept = kept[:len(kept)-1]
	}
	return string(kept) + fmt.Sprintf("[diff cut: %d of %d bytes shown; ask for fewer paths]\n", len(kept), c.n)
}

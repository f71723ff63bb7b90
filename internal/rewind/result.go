package rewind

import (
	"context"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/restore"
)

// Result is the JSON document of a rewind (DESIGN section 3): the plan
// before it, or what was done after it.
type Result struct {
	Checkpoint string         `json:"checkpoint"`
	DryRun     bool           `json:"dry_run"`
	Plan       string         `json:"plan"`
	Files      []restore.File `json:"files"`
	Left       []restore.Left `json:"left"`
	Head       HeadNote       `json:"head"`
	Safety     string         `json:"safety,omitempty"`
	Exact      *bool          `json:"exact,omitempty"`
	Unexpected []string       `json:"unexpected,omitempty"` // paths that made exact false
	Partial    bool           `json:"partial,omitempty"`    // the target is a partial checkpoint
	// Reverse, for --only and --session, is what the rewind reverses;
	// checkpoint is then its argument (t3, k2..k5) or the session's id.
	Reverse *Reversal `json:"reverse,omitempty"`
	Resume  any       `json:"resume"`
	// Refused is, for a dry run, the error applying the plan now would
	// stop with (an outside edit, an operation in progress).
	Refused *Refusal `json:"refused,omitempty"`
}

// Refusal is a preflight conflict as the document shows it.
type Refusal struct {
	Code    fault.Code `json:"code"`
	Message string     `json:"message"`
	Data    any        `json:"data,omitempty"`
}

// HeadNote says whether HEAD moves, or moved since the target was taken,
// and by how many commits.
type HeadNote struct {
	Moves   bool   `json:"moves"`
	From    string `json:"from"`
	To      string `json:"to"`
	Commits int    `json:"commits"`
}

// Document is the plan of pr as the JSON document; done, when set, is
// what applying it did.
func (r *Rewinder) Document(ctx context.Context, pr *Prepared, dry bool, done *Applied) Result {
	p := pr.Plan
	res := Result{Checkpoint: pr.Target.ID, DryRun: dry, Plan: p.ID, Files: p.Files, Left: p.Left,
		Head: r.headNote(ctx, pr), Resume: pr.Resume(), Partial: pr.Target.Partial, Reverse: pr.Reverse}
	if res.Files == nil {
		res.Files = []restore.File{}
	}
	if res.Left == nil {
		res.Left = []restore.Left{}
	}
	if done != nil {
		res.Safety, res.Exact, res.Unexpected = done.Safety, &done.Exact, done.Unexpected
	}
	if fe := pr.Refused; fe != nil {
		res.Refused = &Refusal{Code: fe.Code, Message: fe.Message, Data: fe.Data}
	}
	return res
}

// headNote says whether HEAD moves with the plan, or moved since the
// target was taken, and by how many commits.
func (r *Rewinder) headNote(ctx context.Context, pr *Prepared) HeadNote {
	if m := pr.Move; m != nil {
		return HeadNote{Moves: true, From: m.From, To: m.To, Commits: len(m.Dropped)}
	}
	n := HeadNote{From: r.Repo.Head, To: pr.Target.Head}
	if n.From != n.To && n.From != "" && n.To != "" {
		n.Commits = r.headCommits(ctx, n.To, n.From)
	}
	return n
}

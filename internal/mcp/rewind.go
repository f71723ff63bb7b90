package mcp

import (
	"context"
	"maps"
	"slices"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/restore"
	"github.com/git-checkpoint/git-checkpoint/internal/rewind"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// Outside choices a model may make: leave a person's edits as they are,
// or refuse the rewind. Overwriting them is for the person alone, at the
// command line.
const (
	outsideRefuse = "refuse"
	outsideKeep   = "keep"
)

// maxPlans bounds the plans a server remembers; the oldest go first.
const maxPlans = 64

// UndoCommand undoes a rewind: it goes back to the rewind's safety
// checkpoint.
const UndoCommand = "git rewind --undo"

// planned is a plan a server made: the request to make it again with,
// and when, among the others.
type planned struct {
	req rewind.Request
	seq int
}

type planIn struct {
	ID      string   `json:"id,omitempty" jsonschema:"the checkpoint to go back to: k<n>, t<n>, @ or a commit (default: the start of the latest turn)"`
	Only    string   `json:"only,omitempty" jsonschema:"instead of id: reverse only the changes of turn t<n> (or of range kA..kB), keeping everything after it"`
	Session string   `json:"session,omitempty" jsonschema:"instead of id: reverse every change of agent session S (an id or a unique prefix), keeping the others'"`
	Paths   []string `json:"paths,omitempty" jsonschema:"only these paths (files or directories)"`
	Outside string   `json:"outside,omitempty" jsonschema:"paths a person changed outside agent turns: refuse (the default: the plan cannot be applied) or keep (leave them as they are)"`
}

// planOut is rewind_plan's document: the dry run's, and whether
// rewind_apply would be let apply it here.
type planOut struct {
	rewind.Result
	ApplyEnabled bool `json:"apply_enabled"`
}

// applyOut is rewind_apply's document: the rewind's, and how to undo it.
type applyOut struct {
	rewind.Result
	Undo string `json:"undo"`
}

// plan is `git rewind --dry-run --json`, remembering the plan for
// rewind_apply.
func (s *Server) plan(ctx context.Context, in planIn) (any, error) {
	// The schema lets outside be refuse or keep only: overwriting a
	// person's edits is theirs to decide, at the command line.
	if in.Outside == "" {
		in.Outside = outsideRefuse
	}
	if in.ID != "" && (in.Only != "" || in.Session != "") || in.Only != "" && in.Session != "" {
		return nil, fault.New(fault.InvalidUsage, "give one of id, only and session")
	}
	t, err := s.Open(ctx)
	if err != nil {
		return nil, err
	}
	rw := &rewind.Rewinder{Workspace: t}
	req := rewind.Request{ID: in.ID, Only: in.Only, Session: in.Session, Outside: in.Outside, DryRun: true, By: store.ByModel}
	for _, p := range in.Paths {
		rel, err := t.Rel(p)
		if err != nil {
			return nil, err
		}
		req.Paths = append(req.Paths, rel)
	}
	pr, err := rw.Plan(ctx, req)
	if err != nil {
		return nil, err
	}
	pr.RecordRefusal(pr.OutsideEdits())
	if pr.Refused != nil && pr.Refused.Code == fault.ConflictOutsideEdits {
		pr.Refused.Hints = outsideHints(pr)
	}
	// The plan is remembered with its target pinned: the default target
	// moves when a turn starts, and the plan id alone must name what
	// rewind_apply applies.
	again := req
	again.DryRun = false
	if pr.Reverse == nil {
		again.ID = pr.Target.ID
	}
	s.remember(pr.Plan.ID, again)
	return planOut{Result: rw.Document(ctx, pr, true, nil), ApplyEnabled: t.Config.MCPRewind}, nil
}

type applyIn struct {
	Plan string `json:"plan" jsonschema:"the plan id (p1-...) that rewind_plan returned"`
}

// apply applies a plan rewind_plan made, once the person has allowed it,
// exactly as planned: prepared again under the lock, it must have the same
// id (else conflict.rewind_stale), and it never overwrites outside edits.
func (s *Server) apply(ctx context.Context, in applyIn) (any, error) {
	t, err := s.Open(ctx)
	if err != nil {
		return nil, err
	}
	rw := &rewind.Rewinder{Workspace: t}
	if !t.Config.MCPRewind {
		return nil, fault.New(fault.UnsupportedMCPRewindOff, "rewinds through MCP are off here: the person applies them").
			WithHint("show the person the plan; they can apply it with 'git rewind ID --plan "+in.Plan+"'",
				"or the person lets the model apply plans itself, in their own shell: git config --global checkpoint.mcpRewind true",
				"the model must not change that setting: a change during a turn is reported to the person").
			WithData(map[string]string{"plan": in.Plan})
	}
	if !restore.IsPlanID(in.Plan) {
		return nil, fault.New(fault.InvalidPlan, "%s is not a plan id", fault.Quote(in.Plan)).
			WithHint("plan ids look like p1- and 16 hex digits; rewind_plan returns one")
	}
	req, ok := s.recall(in.Plan)
	if !ok {
		return nil, fault.New(fault.NotFoundPlan, "no plan %s was made by this server", in.Plan).
			WithHint("call rewind_plan, then rewind_apply with the plan id it returns").
			WithData(map[string]string{"plan": in.Plan})
	}
	pr, done, err := rw.ApplyPlan(ctx, req, in.Plan)
	if err != nil {
		fe := fault.As(err)
		switch fe.Code {
		case fault.ConflictRewindStale:
			fe.Hints = []string{"call rewind_plan again to see the new plan"}
		case fault.ConflictOutsideEdits:
			fe.Hints = outsideHints(pr)
		}
		return nil, fe
	}
	if done == nil {
		return applyOut{Result: rw.Document(ctx, pr, false, nil)}, nil
	}
	s.forget(in.Plan)
	return applyOut{Result: rw.Document(ctx, pr, false, done), Undo: UndoCommand}, nil
}

// outsideHints say, to a model, how to go on past a person's edits.
func outsideHints(pr *rewind.Prepared) []string {
	return []string{"plan again with outside \"keep\" to leave them as they are",
		"restoring them too is the person's call: git rewind " + pr.TargetArg() + " --outside=overwrite"}
}

func (s *Server) remember(id string, req rewind.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.plans == nil {
		s.plans = map[string]planned{}
	}
	seq := 0
	for _, p := range s.plans {
		seq = max(seq, p.seq+1)
	}
	s.plans[id] = planned{req: req, seq: seq}
	if len(s.plans) > maxPlans {
		oldest := slices.MinFunc(slices.Collect(maps.Keys(s.plans)), func(a, b string) int { return s.plans[a].seq - s.plans[b].seq })
		delete(s.plans, oldest)
	}
}

func (s *Server) recall(id string) (rewind.Request, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.plans[id]
	return p.req, ok
}

func (s *Server) forget(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.plans, id)
}

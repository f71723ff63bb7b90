package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/agents"
	"github.com/git-checkpoint/git-checkpoint/internal/capture"
	"github.com/git-checkpoint/git-checkpoint/internal/config"
	"github.com/git-checkpoint/git-checkpoint/internal/doctor"
	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
	"github.com/git-checkpoint/git-checkpoint/internal/turns"
)

type statusCmd struct{}

type statusDoc struct {
	Mode     string `json:"mode"` // "repository" or "private"
	Worktree string `json:"worktree"`
	Top      string `json:"top"`
	StateDir string `json:"state_dir"`
	// StoreID names this store on a remote (git checkpoint push); ""
	// when it has none and none could be made (a store that cannot be
	// written).
	StoreID     string        `json:"store_id"`
	Checkpoints int           `json:"checkpoints"`
	Latest      *store.Record `json:"latest"`
	Interrupted *store.Rewind `json:"interrupted_rewind"`
	Problems    []string      `json:"journal_problems,omitempty"`

	// DiskBytes is what the objects only checkpoints hold take on disk:
	// what pruning and gc would eventually free.
	DiskBytes int64 `json:"disk_bytes"`
	// Hooks are the agent settings and git hooks that call git-checkpoint.
	Hooks []string `json:"hooks"`
	// HooksTwice are the agents that run those hooks twice, from their
	// settings and from their plugin: every prompt two turns.
	HooksTwice []string `json:"hooks_twice,omitempty"`
	// HookFailures, when hooks fail, counts the calls that took no
	// checkpoint since the last one that did, with the last failure.
	HookFailures *hookFailures `json:"hook_failures,omitempty"`
	// MCP says where agents find the MCP server for this tree, and
	// whether the model may apply rewinds through it: the person should
	// know it can.
	MCP statusMCP `json:"mcp"`
	// StoreProblems say why no checkpoint can be written (a read-only
	// filesystem, a store the user may not write, a full disk): hooks
	// then fail without being able to record it.
	StoreProblems []string `json:"store_problems,omitempty"`
	// PrivateStore is the folder of a private store in this work tree,
	// from before the repository was made around it: its checkpoints are
	// no longer the ones listed, and a person should know where they are.
	PrivateStore string `json:"private_store,omitempty"`
	// RemovedWorktrees are linked worktrees that are gone, whose
	// checkpoints stay until prune's age rules take them.
	RemovedWorktrees []doctor.RemovedWorktree `json:"removed_worktrees"`
	// Locks are the lock files killed commands left where the store
	// writes (doctor's locks check), which doctor --fix removes.
	Locks []string `json:"stale_locks,omitempty"`
}

type statusMCP struct {
	Registered []agents.Registration `json:"registered"`
	// Rewind is checkpoint.mcpRewind as the server reads it: the model
	// may apply the plans it makes (never over a person's edits).
	Rewind bool `json:"rewind"`
	// Ignored are the values of the setting that turn nothing on: set in
	// the repository's configuration, the environment or git's command
	// line (config.Within).
	Ignored []config.Ignored `json:"ignored,omitempty"`
	// PassesConfig are registrations that start the server with git
	// configuration in its environment or on its command line, which it
	// ignores for the switch: what a repository would turn it on with.
	PassesConfig []agents.Passing `json:"passes_config,omitempty"`
	// Turned is the newest turn during which the setting changed, and
	// to what: the model could have changed it from its shell.
	Turned *switchTurn `json:"turned,omitempty"`
}

type switchTurn struct {
	Turn string `json:"turn"`
	On   bool   `json:"on"`
}

// switchTurned finds the newest turn of j during which
// checkpoint.mcpRewind changed (store.SwitchChanged).
func switchTurned(j *store.Journal) *switchTurn {
	h := turns.History(j)
	for i := len(h) - 1; i >= 0; i-- {
		if on, changed := store.SwitchChanged(h[i].SwitchAtStart, h[i].SwitchAtEnd); changed {
			return &switchTurn{Turn: h[i].ID, On: on}
		}
	}
	return nil
}

type hookFailures struct {
	Count int             `json:"count"`
	Last  *agents.Failure `json:"last"`
}

// privateBelow returns the directory holding a private store at or
// above where the command started, within this repository's work tree;
// "" when there is none or the store is the one in use. A repository
// made around a private store wins from then on (DESIGN 5.5).
func (s *session) privateBelow() string {
	if s.Repo.Private {
		return ""
	}
	top := git.FindPrivate(s.Cwd)
	if top == "" {
		return ""
	}
	if real, err := filepath.EvalSymlinks(top); err == nil {
		top = real // as the work tree's top is
	}
	if rel, err := filepath.Rel(s.Repo.Top, top); err != nil || !filepath.IsLocal(rel) {
		return ""
	}
	return top
}

// hookFailures reads what the hooks recorded; nil while they work.
func (s *session) hookFailures() *hookFailures {
	h := agents.ReadHealth(s.Store.Dir)
	if h.Failures == 0 || h.Last == nil {
		return nil
	}
	return &hookFailures{Count: h.Failures, Last: h.Last}
}

// describe says what failing hooks mean, for status and doctor.
func (f *hookFailures) describe(now time.Time) string {
	return fmt.Sprintf("%d %s took no checkpoint since the last one that did; the last, %s (%s %s): %s",
		f.Count, fault.Plural(f.Count, "hook call", "hook calls"), age(now, f.Last.At), f.Last.Agent, f.Last.Event, f.Last.Message)
}

func (c *statusCmd) Run(ctx context.Context, sys *IO, g *Globals) error {
	s, err := open(ctx, sys, g)
	if err != nil {
		return err
	}
	j, refs, err := s.Journal(ctx)
	if err != nil {
		return err
	}
	var idErr error
	doc := statusDoc{Mode: "repository", Worktree: s.Repo.Worktree, Top: s.Repo.Top, StateDir: s.Store.Dir,
		Checkpoints: len(refs), Latest: j.Latest(), Problems: j.Problems()}
	if s.Repo.Private {
		doc.Mode = "private"
	}
	// The id is made here when there is none, so that it can be read
	// before the first push; a store that cannot be written has none,
	// which StoreProblems explains.
	doc.StoreID, idErr = s.Store.EnsureID()
	if doc.DiskBytes, err = s.Store.DiskUsage(ctx, s.Repo.CommonDir); err != nil {
		return err
	}
	if started, ended := j.LastRewind(); started != nil && !ended {
		doc.Interrupted = started
	}
	doc.HookFailures = s.hookFailures()
	doc.MCP.Turned = switchTurned(j)
	d := s.doctor(doc.HookFailures)
	if doc.Hooks = d.InstalledHooks(ctx); doc.Hooks == nil {
		doc.Hooks = []string{}
	}
	doc.HooksTwice = d.TwiceHooked()
	env := agents.Env{Top: s.Repo.Top, Home: sys.Getenv("HOME"), Getenv: sys.Getenv}
	doc.MCP = statusMCP{Registered: agents.MCPRegistrations(env), Rewind: s.Config.MCPRewind, Ignored: s.Config.MCPIgnored,
		PassesConfig: agents.MCPConfigPassing(env), Turned: doc.MCP.Turned}
	if doc.MCP.Registered == nil {
		doc.MCP.Registered = []agents.Registration{}
	}
	if doc.RemovedWorktrees, err = d.RemovedWorktrees(ctx); err != nil {
		return err
	}
	for _, c := range d.StoreProblems() {
		doc.StoreProblems = append(doc.StoreProblems, c.Message)
	}
	for _, c := range d.LockProblems() {
		doc.Locks = append(doc.Locks, strings.TrimPrefix(c.Message, "locks: "))
	}
	var privateErr error
	if top := s.privateBelow(); top != "" {
		doc.PrivateStore = filepath.Join(top, git.PrivateFolder)
		privateErr = git.IgnorePrivate(top)
	}
	if idErr != nil && len(doc.StoreProblems) == 0 {
		s.Warn("%s", fault.As(idErr).Message)
	}
	if s.out.json {
		return s.out.JSON(doc)
	}
	s.out.Printf("worktree     %s (%s)\n", doc.Top, doc.Worktree)
	if doc.Mode == "private" {
		s.out.Printf("store        %s (private: this directory is in no git repository)\n", doc.StateDir)
	} else {
		s.out.Printf("store        %s\n", doc.StateDir)
	}
	if doc.StoreID != "" {
		s.out.Printf("store id     %s\n", doc.StoreID)
	}
	s.out.Printf("checkpoints  %d, %s held by them alone\n", doc.Checkpoints, capture.HumanBytes(doc.DiskBytes))
	if l := doc.Latest; l != nil {
		s.out.Printf("latest       %s, %s, %s\n", l.ID, age(sys.Now(), l.At), l.Reason)
	}
	if doc.Checkpoints > 0 {
		// Each checkpoint is a commit a ref holds, so every view of all
		// refs shows them (docs/decisions.md measures it): say how to
		// leave them out where people look.
		s.out.Printf("other tools  git log --all, gitk --all and tig --all show checkpoint commits too; leave them out with %s\n",
			"git log --exclude='refs/checkpoints/*' --all (see git-checkpoint(1), OTHER TOOLS)")
	}
	if len(doc.Hooks) == 0 {
		s.out.Printf("hooks        none installed (set an agent up with 'git checkpoint install AGENT')\n")
	}
	for _, h := range doc.Hooks {
		s.out.Printf("hooks        %s\n", fault.Quote(h))
	}
	for _, a := range doc.HooksTwice {
		s.out.Printf("%s %s (run 'git checkpoint doctor')\n", s.out.Paint("red", "hooks WARN  "), doctor.HooksTwice(a))
	}
	s.printStatusMCP(doc.MCP, env)
	for _, r := range doc.RemovedWorktrees {
		s.out.Printf("removed      %s: %d %s of a removed worktree; %s\n", r.Worktree, r.Checkpoints,
			fault.Plural(r.Checkpoints, "checkpoint", "checkpoints"), doctor.RemovedFate(days(s.Config.KeepFor)))
	}
	if p := doc.PrivateStore; p != "" {
		ignored := "which ignores it"
		if privateErr != nil {
			ignored = "which does not ignore it: " + fault.As(privateErr).Message
		}
		s.out.Printf("private      %s: a private store from before this repository, %s; its checkpoints: GIT_DIR=%s GIT_WORK_TREE=%s git checkpoint list\n",
			p, ignored, filepath.Join(p, "git"), filepath.Dir(p))
	}
	if f := doc.HookFailures; f != nil {
		s.out.Printf("%s %s (see %s)\n", s.out.Paint("red", "hooks FAIL  "), f.describe(sys.Now()),
			fault.Quote(filepath.Join(s.Store.Dir, "hook.log")))
	}
	for _, p := range doc.StoreProblems {
		s.out.Printf("%s %s (run 'git checkpoint doctor')\n", s.out.Paint("red", "store FAIL  "), p)
	}
	for _, l := range doc.Locks {
		s.out.Printf("%s %s (run 'git checkpoint doctor --fix')\n", s.out.Paint("yellow", "locks       "), l)
	}
	if r := doc.Interrupted; r != nil {
		s.out.Printf("%s  a rewind to %s was interrupted; undo it with 'git rewind --undo' (safety checkpoint %s)\n",
			s.out.Paint("red", "interrupted"), r.Target, r.Safety)
	}
	for _, p := range doc.Problems {
		s.out.Printf("journal      %s (run 'git checkpoint doctor')\n", p)
	}
	return nil
}

// printStatusMCP says where the MCP server is registered and, once it is
// or the setting is on, whether the model may apply rewinds.
func (s *session) printStatusMCP(m statusMCP, env agents.Env) {
	if len(m.Registered) == 0 {
		s.out.Printf("mcp          not registered (let the model see checkpoints with 'git checkpoint install AGENT --mcp')\n")
	}
	for _, r := range m.Registered {
		s.out.Printf("mcp          %s, %s\n", r.Agent, fault.Quote(displayPath(r.Path, s.Cwd, env.Home)))
	}
	if t := m.Turned; t != nil {
		s.out.Printf("%s %s\n", s.out.Paint("red", "mcp WARN    "), store.SwitchNote(t.Turn, t.On))
	}
	for _, p := range m.PassesConfig {
		s.out.Printf("%s %s\n", s.out.Paint("red", "mcp WARN    "), doctor.DescribePassing(p, displayPath(p.Path, s.Cwd, env.Home)))
	}
	switch {
	case m.Rewind:
		s.out.Printf("%s the model may apply its rewind plans itself, never over a person's edits (checkpoint.mcpRewind; 'git config --global --unset checkpoint.mcpRewind' turns it off)\n",
			s.out.Paint("yellow", "mcp rewinds "))
	case len(m.Ignored) > 0:
		ig := m.Ignored[len(m.Ignored)-1]
		where := "on git's command line or in the environment"
		if ig.File != "" {
			where = "in " + fault.Quote(displayPath(ig.File, s.Cwd, env.Home))
		}
		s.out.Printf("mcp rewinds  off: checkpoint.mcpRewind=%s %s is ignored: only your global or system git configuration lets the model apply rewinds ('git config --global checkpoint.mcpRewind true')\n",
			ig.Value, where)
	case len(m.Registered) > 0:
		s.out.Printf("mcp rewinds  off: the model plans, a person applies ('git config --global checkpoint.mcpRewind true' lets it apply)\n")
	}
}

package bisect

import (
	"context"
	"math/bits"
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/rewind"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
	"github.com/git-checkpoint/git-checkpoint/internal/turns"
)

// search is one bisect under way. One worktree serves every step: each
// candidate's files are written with a plan from the previous
// candidate's tree, so a step costs what the two differ by, and --setup
// runs once.
type search struct {
	b     *Bisector
	req   Request
	space *space
	co    *rewind.Checkout
	at    *store.Record // what the worktree holds
	// results are CMD's exit statuses by content (tree and raw overlay):
	// a checkpoint with the same files as one tested is not run again.
	results map[string]int
	res     *Result
}

// bisect checks the ends, then searches the turns' ends, then the
// checkpoints within the first bad turn.
func (s *search) bisect(ctx context.Context, j *store.Journal, refs store.Refs, good, bad *store.Record) error {
	fails, status, err := s.test(ctx, good, "good", 0)
	if err != nil {
		return err
	}
	if err := s.notRunnable(good, status); fails && err != nil {
		return err
	}
	if fails {
		return fault.New(fault.FailedBisectGoodFails, "%s fails already at the good end %s (exit %d)", s.name(), good.ID, status).
			WithHint("the good end must be a checkpoint where it passes: name an older one with --good ID (see 'git checkpoint list')").
			WithHint("ignored files (node_modules, build output) are not in checkpoints: make them with --setup, e.g. --setup 'npm ci'")
	}
	if fails, _, err = s.test(ctx, bad, "bad", 0); err != nil {
		return err
	}
	if !fails {
		return fault.New(fault.FailedBisectBadPasses, "%s passes at the bad end %s: there is no first bad checkpoint to find", s.name(), bad.ID).
			WithHint("the bad end must be a checkpoint where it fails: name it with --bad ID (see 'git checkpoint list')")
	}
	seq := []*store.Record{good}
	for _, t := range turns.History(j) {
		if e := t.End; e != nil && e.N > good.N && e.N < bad.N && refs.Live(e) && !slices.Contains(seq, e) {
			seq = append(seq, e)
		}
	}
	slices.SortFunc(seq, func(a, b *store.Record) int { return a.N - b.N })
	seq = append(seq, bad)
	lo, hi, err := s.search(ctx, seq)
	if err != nil {
		return err
	}
	inner := []*store.Record{seq[lo]}
	for _, r := range j.Checkpoints() {
		if r.N > seq[lo].N && r.N < seq[hi].N && refs.Live(r) {
			inner = append(inner, r)
		}
	}
	inner = append(inner, seq[hi])
	if lo, hi, err = s.search(ctx, inner); err != nil {
		return err
	}
	return s.found(ctx, j, inner[lo], inner[hi])
}

// search finds, in seq whose first passes and whose last fails, the
// adjacent pair where CMD goes from passing to failing.
func (s *search) search(ctx context.Context, seq []*store.Record) (lo, hi int, err error) {
	lo, hi = 0, len(seq)-1
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		left := bits.Len(uint(hi-lo-1)) - 1
		fails, _, err := s.test(ctx, seq[mid], "", left)
		if err != nil {
			return 0, 0, err
		}
		if fails {
			hi = mid
		} else {
			lo = mid
		}
	}
	return lo, hi, nil
}

// found fills the result: the first bad checkpoint, its turn and prompt,
// and what changed from the last good one.
func (s *search) found(ctx context.Context, j *store.Journal, last, first *store.Record) error {
	diff, err := s.b.Git.DiffTree(ctx, last.Tree, first.Tree, git.DiffTreeOptions{})
	if err != nil {
		return err
	}
	fb := FirstBad{Turn: first.Turn, Checkpoint: first.ID, Reason: first.Reason, Tool: first.Tool, Paths: []string{}}
	for _, e := range diff {
		fb.Paths = append(fb.Paths, e.Path)
	}
	for _, t := range turns.History(j) {
		if t.ID == first.Turn {
			fb.Prompt = t.Prompt
		}
	}
	s.res.FirstBad, s.res.LastGood = fb, last.ID
	return nil
}

// test writes c's files into the worktree and runs CMD there, unless a
// checkpoint with the same files was tested already.
func (s *search) test(ctx context.Context, c *store.Record, end string, left int) (fails bool, status int, err error) {
	if err := s.b.interrupted(); err != nil {
		return false, 0, err
	}
	key := c.Tree + " " + c.Raw
	if st, ok := s.results[key]; ok {
		return st != 0, st, nil
	}
	if s.b.Progress != nil {
		s.b.Progress(Progress{Checkpoint: c.ID, Turn: c.Turn, End: end, Left: left})
	}
	if err := s.put(ctx, c); err != nil {
		return false, 0, err
	}
	if err := s.b.Fail.At("bisect-step"); err != nil {
		return false, 0, fault.Wrap(err, fault.FailedIO, "injected failure before testing %s", c.ID)
	}
	status, err = s.b.run(s.dir(), s.req.Command)
	if err != nil {
		return false, 0, err
	}
	s.results[key] = status
	s.res.Steps = append(s.res.Steps, Step{Checkpoint: c.ID, Turn: c.Turn, Exit: status})
	return status != 0, status, nil
}

// put makes the worktree hold c's files: the first time by making it
// (and running --setup there), then with a plan from the tree it holds.
// HEAD follows c's, so that git in CMD sees c's commits.
func (s *search) put(ctx context.Context, c *store.Record) error {
	if s.co == nil {
		if c.Head == "" {
			return fault.New(fault.UnsupportedUnbornHead, "%s was taken before the first commit: a worktree needs a commit to start from", c.ID).
				WithHint("name a good end taken after the first commit with --good ID")
		}
		headTree, err := rewind.HeadTree(ctx, s.b.Git, c)
		if err != nil {
			return err
		}
		co, _, err := rewind.AddWorktree(ctx, s.b.Git, rewind.WorktreeRequest{Path: s.space.tree, Staging: s.space.staging, HeadTree: headTree, Target: c})
		if err != nil {
			return err
		}
		s.co, s.at = co, c
		return s.setup()
	}
	if c.Head != "" && c.Head != s.co.Head {
		// Move the detached HEAD and reset the index to it, leaving the
		// files: read-tree without -u never touches the worktree.
		// The worktree is the bisect's own, and s.co.Head what it put
		// there: a HEAD moved meanwhile is not this bisect's to move.
		if err := s.co.Git.UpdateRef(ctx, git.RefUpdate{Ref: "HEAD", New: c.Head, Old: s.co.Head, NoDeref: true}); err != nil {
			return fault.Wrap(err, fault.FailedGit, "cannot move the bisect worktree's HEAD to %s", fault.Short(c.Head))
		}
		if _, err := s.co.Git.Run(ctx, git.Cmd{Args: []string{"read-tree", c.Head}}); err != nil {
			return fault.Wrap(err, fault.FailedGit, "cannot reset the bisect worktree's index to %s", fault.Short(c.Head))
		}
		s.co.Head = c.Head
	}
	if _, err := s.co.Write(ctx, s.at.Tree, s.at.Raw, c); err != nil {
		return err
	}
	s.at = c
	return nil
}

// setup runs --setup once in the new worktree.
func (s *search) setup() error {
	if s.req.Setup == "" {
		return nil
	}
	if s.b.Progress != nil {
		s.b.Progress(Progress{Setup: s.req.Setup})
	}
	status, err := s.b.run(s.dir(), []string{"sh", "-c", s.req.Setup})
	if err != nil {
		return err
	}
	if status != 0 {
		return fault.New(fault.FailedBisectSetup, "the setup command %s failed in the temporary worktree (exit %d)", fault.ShellQuote(s.req.Setup), status).
			WithHint("it runs with sh -c in a worktree holding the good end's files; its output is above")
	}
	return nil
}

// dir is where CMD runs: the worktree's counterpart of the directory the
// bisect was started in, or its top when a candidate has no such
// directory.
func (s *search) dir() string {
	d := filepath.Join(s.co.Top, filepath.FromSlash(s.b.Repo.Prefix))
	if isDir(d) {
		return d
	}
	return s.co.Top
}

// cleanup removes the worktree and the temporary directory.
func (s *search) cleanup() error {
	ctx := context.Background()
	if s.co != nil {
		if err := s.co.Remove(ctx, s.b.Git); err != nil {
			return fault.Wrap(err, fault.FailedGit, "cannot remove the bisect's temporary worktree %s", s.co.Top).
				WithHint("remove it with: git worktree remove --force " + fault.ShellQuote(s.co.Top))
		}
	}
	return s.space.drop()
}

// name is CMD as the messages show it.
// notRunnable explains an exit of 127 or 126 at the good end as a shell
// means it: a command not found, or not executable. It is no failure of
// the good end, and an older good end would not help: the command is
// not in the worktree (a typo, PATH, a script the tree did not hold
// yet). nil for any other status.
func (s *search) notRunnable(good *store.Record, status int) error {
	switch status {
	case 127:
		return fault.New(fault.NotFoundCommand, "%s: command not found in the worktree of the good end %s (exit 127); no checkpoint was tested", s.name(), good.ID).
			WithHint("check the command's name and PATH; a script of the tree runs as ./NAME, and one the good end did not hold yet cannot run there (name a later good end with --good ID)")
	case 126:
		return fault.New(fault.FailedCommandNotExecutable, "%s: cannot be executed in the worktree of the good end %s (exit 126); no checkpoint was tested", s.name(), good.ID).
			WithHint("make it executable (chmod +x) with a #! line, or run it through its interpreter: sh " + fault.ShellQuote(s.req.Command[0]))
	}
	return nil
}

func (s *search) name() string {
	words := make([]string, len(s.req.Command))
	for i, w := range s.req.Command {
		words[i] = fault.ShellQuote(w)
	}
	return strings.Join(words, " ")
}

package bisect

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gofrs/flock"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/rewind"
)

// prefix names a bisect's temporary directory, so that a leftover is
// recognisable as one, and nothing else is ever removed as one.
const prefix = "git-checkpoint-bisect-"

// Leftover is the temporary worktree of a bisect that no longer runs: it
// was killed before it could remove it.
type Leftover struct {
	Marker string // the marker file in the state directory
	Dir    string // the temporary directory
	Tree   string // the linked worktree inside it
}

// markers is where a bisect records its temporary worktree while it runs:
// a file per bisect, locked by it, so that a marker whose lock is free
// belongs to a bisect that is gone (a crash, SIGKILL, a power loss).
func markers(stateDir string) string { return filepath.Join(stateDir, "bisect") }

// space is a bisect's temporary directory with its marker held.
type space struct {
	dir, tree, staging string
	marker             string
	lock               *flock.Flock
}

// newSpace makes the temporary directory and its locked marker. The
// directory is in the system's temporary directory, not under .git: tools
// skip whatever is under a .git directory (test runners' default
// excludes, file watchers), and CMD must see an ordinary project. The
// worktree is named as this tree is, for tools that show it.
func newSpace(stateDir, name string) (*space, error) {
	if err := os.MkdirAll(markers(stateDir), 0o755); err != nil {
		return nil, fault.Wrap(err, fault.FailedIO, "cannot create %s", markers(stateDir))
	}
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		return nil, fault.Wrap(err, fault.FailedIO, "cannot create a temporary directory for the bisect's worktree")
	}
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		os.RemoveAll(dir)
		return nil, fault.Wrap(err, fault.FailedIO, "cannot resolve the temporary directory")
	}
	sp := &space{dir: dir, tree: filepath.Join(dir, name), staging: filepath.Join(dir, "staging"),
		marker: filepath.Join(markers(stateDir), filepath.Base(dir))}
	if err := os.WriteFile(sp.marker, []byte(sp.dir+"\n"+sp.tree+"\n"), 0o644); err != nil {
		os.RemoveAll(dir)
		return nil, fault.Wrap(err, fault.FailedIO, "cannot write %s", sp.marker)
	}
	sp.lock = flock.New(sp.marker)
	if ok, err := sp.lock.TryLock(); !ok || err != nil {
		sp.drop()
		return nil, fault.Wrap(err, fault.FailedIO, "cannot lock %s", sp.marker)
	}
	return sp, nil
}

// drop removes the directory and the marker, the marker last: until then
// a crash leaves a leftover that doctor finds.
func (sp *space) drop() error {
	err := os.RemoveAll(sp.dir)
	if err == nil {
		err = os.Remove(sp.marker)
	}
	if sp.lock != nil {
		sp.lock.Unlock()
	}
	if err != nil {
		return fault.Wrap(err, fault.FailedIO, "cannot remove the bisect's temporary directory %s", sp.dir)
	}
	return nil
}

// Leftovers lists the temporary worktrees of bisects that no longer run.
// A running bisect holds its marker's lock, so it is never listed.
func Leftovers(stateDir string) ([]Leftover, error) {
	entries, err := os.ReadDir(markers(stateDir))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fault.Wrap(err, fault.FailedIO, "cannot read %s", markers(stateDir))
	}
	var out []Leftover
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		path := filepath.Join(markers(stateDir), e.Name())
		fl := flock.New(path)
		if ok, err := fl.TryLock(); !ok || err != nil {
			continue
		}
		fl.Unlock()
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		l := Leftover{Marker: path}
		// Only a directory named as the marker is, in which the worktree
		// is, is ever removed: a marker's content is not trusted further.
		if len(lines) == 2 && filepath.Base(lines[0]) == e.Name() && filepath.Dir(lines[1]) == lines[0] {
			l.Dir, l.Tree = lines[0], lines[1]
		}
		out = append(out, l)
	}
	return out, nil
}

// Clean removes a leftover: its worktree (through g, git in this
// repository), its directory, then its marker.
func Clean(ctx context.Context, g *git.Runner, l Leftover) error {
	if l.Tree != "" {
		if err := (&rewind.Checkout{Top: l.Tree}).Remove(ctx, g); err != nil {
			if _, serr := os.Lstat(l.Tree); serr == nil {
				return fault.Wrap(err, fault.FailedGit, "cannot remove the bisect's leftover worktree %s", l.Tree)
			}
		}
		if err := os.RemoveAll(l.Dir); err != nil {
			return fault.Wrap(err, fault.FailedIO, "cannot remove %s", l.Dir)
		}
	}
	if err := os.Remove(l.Marker); err != nil && !os.IsNotExist(err) {
		return fault.Wrap(err, fault.FailedIO, "cannot remove %s", l.Marker)
	}
	return nil
}

// Describe says what a leftover is, for doctor and for the warning of the
// bisect that removes it.
func (l Leftover) Describe() string {
	if l.Tree == "" {
		return fmt.Sprintf("a killed bisect left the marker %s, which names no temporary worktree", l.Marker)
	}
	return fmt.Sprintf("a killed bisect left its temporary worktree %s", l.Tree)
}

// Remedy is the command that removes a leftover by hand.
func (l Leftover) Remedy() string {
	if l.Tree == "" {
		return "rm " + fault.ShellQuote(l.Marker)
	}
	return fmt.Sprintf("git worktree remove --force %s && rm -rf %s %s", fault.ShellQuote(l.Tree), fault.ShellQuote(l.Dir), fault.ShellQuote(l.Marker))
}

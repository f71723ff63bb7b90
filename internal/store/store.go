package store

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/durable"
	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
)

// Store is the checkpoint storage of one working tree.
type Store struct {
	Dir       string // state directory: journal, private index, lock, staging
	Worktree  string // "main" or "wt-<name>"
	RefPrefix string // refs/checkpoints/<worktree>/
	// CommonDir is the repository's shared git directory, which knows
	// its worktrees and where git keeps the refs and their locks.
	CommonDir string
	Git       *git.Runner
	Now       func() time.Time
	// LocksAt, when set, is the instant the ages of lock files are taken
	// at (zero: each time, now). A command that repairs and then reports
	// (doctor --fix) fixes it, so that a lock does not turn stale between
	// the repair that left it young and the check that reports it.
	LocksAt time.Time
	// Fail is the command's test-only failure injection; a prune has
	// one step, pruned (its event is journaled, its refs not deleted).
	Fail fault.Failpoints
}

// New returns the store of repo's working tree.
func New(repo *git.Repo, r *git.Runner, now func() time.Time) *Store {
	return &Store{
		Dir:       repo.StateDir,
		Worktree:  repo.Worktree,
		RefPrefix: "refs/checkpoints/" + repo.Worktree + "/",
		CommonDir: repo.CommonDir,
		Git:       r,
		Now:       now,
	}
}

// Path returns a file in the state directory.
func (s *Store) Path(name string) string { return filepath.Join(s.Dir, name) }

// The store holds a person's work with an agent: prompts (the journal),
// hook payloads (the queue), the hook log, the note for the next prompt,
// carried transcripts. It is theirs alone to read, whatever the umask:
// every file in it is created PrivateFile and every directory PrivateDir
// (a group that shares the repository, core.sharedRepository, shares
// git's objects and refs, not this).
const (
	PrivateFile fs.FileMode = 0o600
	PrivateDir  fs.FileMode = 0o700
)

// Init creates the state directory, PrivateDir; one made wider before
// stores were private is narrowed.
func (s *Store) Init() error {
	if err := os.MkdirAll(s.Dir, PrivateDir); err != nil {
		return fault.Wrap(err, fault.FailedIO, "cannot create the state directory")
	}
	// Only the group's and others' bits go: a store its owner made
	// read-only stays so. Best effort: one of another owner stays as it is.
	if fi, err := os.Stat(s.Dir); err == nil && fi.Mode().Perm()&^PrivateDir != 0 {
		_ = os.Chmod(s.Dir, fi.Mode().Perm()&PrivateDir)
	}
	return nil
}

// Journal reads the journal.
func (s *Store) Journal() (*Journal, error) {
	j, err := readJournal(s.Path("journal.jsonl"))
	if err != nil {
		return nil, fault.Wrap(err, fault.FailedIO, "cannot read the journal")
	}
	if j.path != "" {
		s.Git.Tracef("journal of %d lines read from its summary and the %d after it", j.lineCount(), len(j.hashes))
	} else if !j.Missing {
		s.Git.Tracef("journal of %d lines read whole", j.lineCount())
	}
	return j, nil
}

// Append records ev in the journal. The caller holds the lock.
func (s *Store) Append(j *Journal, ev Event) error {
	if err := s.Stage(j, ev); err != nil {
		return err
	}
	return s.Flush(j)
}

// Stage adds ev to the journal in memory, chained as Append would write
// it, for a Flush to write with the lines staged before it: a group of
// checkpoints (capture's group captures) is journaled in one write and
// one sync, after the one sync that puts all their refs on disk.
func (s *Store) Stage(j *Journal, ev Event) error {
	if ev.At.IsZero() {
		ev.At = s.Now().UTC()
	}
	if err := s.Init(); err != nil {
		return err
	}
	if len(j.problems) > 0 && j.staged == 0 {
		// Never append to a damaged journal: a line chained to a broken
		// one would be as doubtful as it is.
		if _, err := s.Rebuild(j); err != nil {
			return err
		}
	}
	if err := stageJournal(j, ev); err != nil {
		return fault.Wrap(err, fault.FailedIO, "cannot write the journal")
	}
	return nil
}

// Flush writes the lines Stage added, and syncs them.
func (s *Store) Flush(j *Journal) error {
	end := s.Git.Phase("journal append")
	err := flushJournal(s.Path("journal.jsonl"), j)
	end()
	if err != nil {
		return fault.Wrap(err, fault.FailedIO, "cannot write the journal")
	}
	return nil
}

// Ref returns the ref of checkpoint n.
func (s *Store) Ref(n int) string { return s.RefPrefix + strconv.Itoa(n) }

// CreateRef points checkpoint n's ref at commit, failing if the ref already
// exists: ids are never reused, and a crash between ref and journal is
// found this way and repaired by Adopt. The caller then syncs (SyncRefs)
// before the journal line that names it. n comes from NextN, which passes
// over a number whose ref lock a killed git (or a power loss) left.
func (s *Store) CreateRef(ctx context.Context, n int, commit string) error {
	return s.Git.UpdateRef(ctx, git.RefUpdate{Ref: s.Ref(n), New: commit, Create: true, NoDeref: true})
}

// SyncRefs makes what this process wrote into the repository durable
// (git.Written): the loose objects, packs and refs git and the tool
// wrote, whose data are synced before they are named, and whose names
// the journal line that follows a new ref must not reach the disk
// before. An fsync of each directory they changed, or one syncfs where a
// write cannot be named; a power loss before it leaves at most a ref
// without a record, which Adopt repairs, never a record naming a ref or
// objects that are gone. It is a step of its own so that its failure is
// never taken for a ref that existed already.
func (s *Store) SyncRefs() error {
	return s.sync("")
}

// SyncFilesystem syncs the repository's filesystem whole, for why: what
// SyncRefs syncs, and what other runs left unsynced.
func (s *Store) SyncFilesystem(why string) error {
	return s.sync(why)
}

func (s *Store) sync(why string) error {
	if err := s.Init(); err != nil { // the state directory is on that filesystem
		return err
	}
	end := s.Git.Phase("sync")
	how, err := syncWritten(s.Git.Written, s.Dir, why)
	end()
	s.Git.Tracef("sync: %s", how)
	if err != nil {
		return fault.Wrap(err, fault.FailedIO, "cannot sync the new checkpoint to disk")
	}
	return nil
}

// syncWritten makes durable what w took note of: the loose objects' data
// another git may have left unsynced and each turn's directories, each
// group at once, the turns in order; or the filesystem that holds dir
// whole, with the reason (why, when the caller gives one). Where a
// file's or a directory's own sync is not cheap (durable.SyncEach), it is
// one syncfs. See git.Written.
func syncWritten(w *git.Written, dir string, why string) (how string, err error) {
	files, turns, whole := w.Take(why)
	switch {
	case whole != "":
		how = "the filesystem: " + whole
		err = durable.SyncFS(dir)
	case !durable.SyncEach:
		how = "the filesystem, where each file's sync is a flush of the drive"
		err = durable.SyncFS(dir)
	default:
		n := 0
		err = durable.SyncFiles(files, dir)
		for _, these := range turns {
			n += len(these)
			if err == nil && len(these) > 0 {
				err = durable.SyncDirs(these, dir)
			}
		}
		how = fmt.Sprintf("%d directories", n)
		if len(files) > 0 {
			how += fmt.Sprintf(", %d objects' data", len(files))
		}
	}
	if err != nil {
		w.Anywhere("the last sync failed")
		return how, err
	}
	w.Synced()
	return how, nil
}

// Refs are a working tree's checkpoint refs, as listed at one moment:
// checkpoint number to the commit its ref names.
type Refs map[int]string

// Live reports whether r's ref still names r's commit: the checkpoint
// was neither pruned nor replaced by another of its number.
func (m Refs) Live(r *Record) bool { return m[r.N] == r.Commit }

// Refs lists this working tree's checkpoint refs: number to commit.
func (s *Store) Refs(ctx context.Context) (Refs, error) {
	list, err := s.Git.ForEachRef(ctx, s.RefPrefix)
	if err != nil {
		return nil, err
	}
	refs := Refs{}
	for _, ref := range list {
		n, err := strconv.Atoi(strings.TrimPrefix(ref.Name, s.RefPrefix))
		if err != nil || n <= 0 {
			continue
		}
		refs[n] = ref.OID
	}
	return refs, nil
}

// Adopt appends a record for every checkpoint ref the journal does not know,
// rebuilt from the commit's trailers. This repairs a crash between
// update-ref and the journal write, and rebuilds a lost journal from refs
// instead of starting empty. The caller holds the lock.
func (s *Store) Adopt(ctx context.Context, j *Journal, refs Refs) (int, error) {
	known := map[int]bool{}
	for _, r := range j.Checkpoints() {
		known[r.N] = true
	}
	var missing []int
	for n := range refs {
		if !known[n] {
			missing = append(missing, n)
		}
	}
	if len(missing) == 0 {
		return 0, nil
	}
	slices.Sort(missing)
	var commits []string
	for _, n := range missing {
		commits = append(commits, refs[n])
	}
	byCommit, err := s.records(ctx, commits)
	if err != nil {
		return 0, err
	}
	// Such a ref was made by a run killed before its sync: the ref and
	// its objects may still be only in memory, and the record naming
	// them must not reach the disk first (TestPowerLoss: "capture after
	// one stopped before its sync").
	if err := s.SyncFilesystem("refs a killed run made are adopted"); err != nil {
		return 0, err
	}
	adopted := 0
	for _, n := range missing {
		r := byCommit[refs[n]]
		if r == nil {
			continue
		}
		r.N, r.ID = n, "k"+strconv.Itoa(n)
		if err := s.Append(j, Event{Type: EventCheckpoint, At: r.At, Checkpoint: r}); err != nil {
			return adopted, err
		}
		adopted++
	}
	return adopted, nil
}

// parseCommit rebuilds a record from "%H\x1f%T\x1f%P\x1f%ct\x1f%B".
func parseCommit(chunk string) *Record {
	f := strings.SplitN(strings.TrimLeft(chunk, "\n"), "\x1f", 5)
	if len(f) != 5 {
		return nil
	}
	r := &Record{Commit: f[0], Tree: f[1], Skipped: []Skip{}}
	if sec, err := strconv.ParseInt(f[3], 10, 64); err == nil {
		r.At = time.Unix(sec, 0).UTC()
	}
	t := ParseTrailers(f[4])
	r.Reason, r.Turn, r.Session, r.Agent = t["Reason"], t["Turn"], t["Session"], t["Agent"]
	r.Head, r.Branch, r.Label, r.Previous = t["Head"], t["Branch"], t["Label"], t["Previous"]
	r.Raw = t["Raw"]
	r.Verbatim = t["Verbatim"] == "true"
	if r.Reason == "" {
		r.Reason = "adopted"
	}
	return r
}

// Message is the commit message of a checkpoint: a subject a person can
// read in `git log refs/checkpoints/...`, and trailers from which the
// record can be rebuilt if the journal is lost.
func Message(r *Record) string {
	var b strings.Builder
	subject := r.Label
	if subject == "" {
		subject = r.Reason
	}
	fmt.Fprintf(&b, "checkpoint %s: %s\n\n", r.ID, oneLine(subject))
	trailer := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "%s: %s\n", k, oneLine(v))
		}
	}
	trailer("Checkpoint", r.ID)
	trailer("Reason", r.Reason)
	trailer("Turn", r.Turn)
	trailer("Session", r.Session)
	trailer("Agent", r.Agent)
	trailer("Head", r.Head)
	trailer("Branch", r.Branch)
	trailer("Label", r.Label)
	trailer("Previous", r.Previous)
	trailer("Raw", r.Raw)
	if r.Verbatim {
		trailer("Verbatim", "true")
	}
	return b.String()
}

// ParseTrailers reads "Key: value" lines from the last paragraph of msg.
func ParseTrailers(msg string) map[string]string {
	out := map[string]string{}
	paras := strings.Split(strings.TrimSpace(msg), "\n\n")
	for _, line := range strings.Split(paras[len(paras)-1], "\n") {
		k, v, ok := strings.Cut(line, ": ")
		if ok && k != "" && !strings.ContainsAny(k, " \t") {
			out[k] = v
		}
	}
	return out
}

func oneLine(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r < 0x20 {
			return ' '
		}
		return r
	}, s)
	if len(s) > 200 {
		s = s[:200]
	}
	return strings.TrimSpace(s)
}

// Package restore computes what a rewind will change (the plan) and applies
// it to the working tree with staged files and atomic renames.
package restore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// Changes a rewind makes to a path.
const (
	Create = "create"
	Modify = "modify"
	Delete = "delete"
	Type   = "type" // file, symlink or gitlink becomes another kind
)

// Reasons a path is left as it is.
const (
	LeftOutside      = "outside"
	LeftTooBig       = "too_big"
	LeftUnreadable   = "unreadable"
	LeftSkipWork     = "skip_worktree"
	LeftGitlink      = "gitlink"
	LeftIgnoredInWay = "ignored_in_the_way"
	// LeftUnsupported is a path that is no file, symbolic link or
	// directory (a FIFO, a socket, a device): no checkpoint holds it, so
	// the rewind neither deletes nor replaces it.
	LeftUnsupported = "unsupported_type"
	// LeftPathTooLong is a directory whose path is longer than the
	// system allows, which no checkpoint holds and no rewind can write.
	LeftPathTooLong = "path_too_long"
	// LeftWithheld is a path the push of a fetched checkpoint left out
	// because it held a secret: no copy of the checkpoint here has it.
	LeftWithheld = "withheld_secret"
	// LeftInWay is a path where the checkpoint has a file, but a path
	// the plan leaves (kept as a person's, too big, unreadable) sits
	// there or on the way to it.
	LeftInWay = "in_the_way"
	// LeftIgnored is a path the checkpoint's ignore rules ignore, which a
	// rewind that also restores those rules therefore does not delete.
	LeftIgnored = "ignored"
	// LeftSymlinkInWay is a path whose leading directory became a symlink
	// or a file while the rewind ran; it is never written through.
	LeftSymlinkInWay = "symlink_in_the_way"
	// LeftHookConfig is an agent's settings file that holds
	// git-checkpoint's hooks, now or in the checkpoint: a rewind that
	// wrote it would switch the product off, or back on.
	LeftHookConfig = "hook_config"
	// LeftMCPConfig is an agent's file that registers git-checkpoint's
	// MCP server, now or in the checkpoint (and holds no hooks): a rewind
	// that wrote it would take the model's tools away, or bring them back.
	LeftMCPConfig = "mcp_config"
)

// File is one path the plan changes.
type File struct {
	Path   string `json:"path"`
	Change string `json:"change"`
	Class  string `json:"class"`
	// What the path holds now (Old*) and after the rewind; modes as git
	// writes them, git.AbsentMode for absent.
	OldMode string `json:"-"`
	OldOID  string `json:"-"`
	Mode    string `json:"-"`
	OID     string `json:"-"`
	// Raw and OldRaw are raw blobs to write instead of a checkout of OID
	// and OldOID, from the checkpoints' raw overlays (addRaw).
	Raw    string `json:"-"`
	OldRaw string `json:"-"`
	// Exact and OldExact say the blob (when there is no raw blob) is the
	// bytes to write, whatever git's settings and attributes say now
	// (store.Record.Verbatim); otherwise a checkout of it is.
	Exact, OldExact bool `json:"-"`
}

// Left is a path that differs but the rewind will not touch.
type Left struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
	// Kept names a file kept aside in the store, for a path written
	// while the rewind ran (LeftChangedDuring) whose file could not go
	// back to its path whole.
	Kept string `json:"kept,omitempty"`
}

type plainLeft Left
type plainFile File

// MarshalJSON adds path_base64 for a path that is not UTF-8.
func (l Left) MarshalJSON() ([]byte, error) { return store.MarshalWithRawName(plainLeft(l), l.Path) }

// MarshalJSON adds path_base64 for a path that is not UTF-8.
func (f File) MarshalJSON() ([]byte, error) { return store.MarshalWithRawName(plainFile(f), f.Path) }

// Options change what a plan contains, and so its id.
type Options struct {
	Paths   []string `json:"paths,omitempty"` // pathspecs from the top, literal
	Outside string   `json:"outside"`         // refuse, keep, overwrite
	// ResetHead moves HEAD too: the same files with another HEAD move are
	// another plan.
	ResetHead bool `json:"reset_head,omitempty"`
	// Keep, when set, gives the reason to leave a path the plan would
	// change, or "". What it decides is in the plan's id through Left.
	Keep func(File) string `json:"-"`
	// Made, for an undo, are the paths the rewind it undoes created: the
	// undo deletes them even where the rules it restores ignore them,
	// since they were not there before that rewind.
	Made map[string]bool `json:"-"`
}

// Plan is what a rewind will do. Its ID binds the plan a person saw to the
// plan that is applied (--plan).
type Plan struct {
	ID      string
	Target  *store.Record
	Current string // tree of the working tree now (S)
	Head    string
	Options Options
	Files   []File
	Left    []Left
}

// Classifier says whose change a path is (agent, turn, outside,
// unattributed).
type Classifier func(path string) string

// Request is everything a plan is computed from. A plan is made in one
// call from one Request: the plan a person is shown and the plan that is
// applied must be built alike, or their ids differ (a plan built without
// the raw overlays once made a prompt's choice fail as stale).
type Request struct {
	Top string // the working tree the plan writes
	// Current and CurrentRaw are the tree of the working tree now and its
	// raw overlay (the bytes git would not give back), or "".
	Current, CurrentRaw string
	// CurrentVerbatim says Current records the disk as a checkpoint does
	// (store.Record.Verbatim).
	CurrentVerbatim bool
	Head            string        // HEAD now
	Skipped         []store.Skip  // paths the scan of Current could not take
	Target          *store.Record // the checkpoint to go back to
	Options         Options       // what the plan holds
	Classify        Classifier    // whose change each path is, or nil
}

// New computes the plan of req: the differences between the current tree
// and the target's, each sorted into a change to make or a path to leave
// (looking at the working tree for ignored files in the way), with the raw
// bytes of both overlays.
func New(ctx context.Context, r *git.Runner, req Request) (*Plan, error) {
	p, err := compute(ctx, r, req.Top, req.Current, req.Head, req.Skipped, req.Target, req.Options, req.Classify)
	if err != nil {
		return nil, err
	}
	if err := p.addRaw(ctx, r, req.CurrentRaw); err != nil {
		return nil, err
	}
	for i := range p.Files {
		p.Files[i].Exact, p.Files[i].OldExact = req.Target.Verbatim, req.CurrentVerbatim
	}
	return p, nil
}

// compute diffs the current tree against the target's and sorts each
// difference into a change to make or a path to leave.
func compute(ctx context.Context, r *git.Runner, top, current, head string, skipped []store.Skip,
	target *store.Record, opts Options, classify Classifier) (*Plan, error) {
	var specs []string
	for _, p := range opts.Paths {
		specs = append(specs, ":(top,literal)"+p)
	}
	diff, err := r.DiffTree(ctx, current, target.Tree, git.DiffTreeOptions{Pathspecs: specs})
	if err != nil {
		return nil, err
	}
	p := &Plan{Target: target, Current: current, Head: head, Options: opts}
	leave := map[string]string{}
	for _, s := range skipped {
		leave[s.Path] = reasonFor(s.Reason)
	}
	for _, s := range target.Skipped {
		leave[s.Path] = reasonFor(s.Reason)
	}
	var files []File
	for _, e := range diff {
		files = append(files, File{Path: e.Path, OldMode: e.OldMode, Mode: e.Mode, OldOID: e.OldOID, OID: e.OID})
	}
	deleted := map[string]bool{}
	for _, fl := range files {
		if fl.Mode == git.AbsentMode {
			deleted[fl.Path] = true
		}
	}
	var gone []string
	for _, fl := range files {
		if fl.Mode == git.AbsentMode && fl.OldMode != "160000" {
			gone = append(gone, fl.Path)
		}
	}
	ignored := map[string]bool{}
	if touchesIgnoreRules(files) {
		if ignored, err = ignoredByTarget(ctx, r, target.Tree, gone, nil); err != nil {
			return nil, err
		}
	}
	// First the reasons that need no look at the tree, then, knowing
	// which deletions the plan really makes, what sits in the way of a
	// write: a path left in place (ignored by the checkpoint's rules,
	// kept as a person's) blocks a file that would replace it.
	nested := nestedRepos{top: top, seen: map[string]bool{}}
	decide := func(ignored map[string]bool) (kept []File, left map[string]string) {
		left = map[string]string{}
		for i := range files {
			fl := &files[i]
			fl.Change = changeOf(fl.OldMode, fl.Mode)
			reason := heldBy(leave, fl.Path)
			if reason == "" && opts.Keep != nil {
				reason = opts.Keep(*fl)
			}
			if reason == "" && (fl.OldMode == "160000" || fl.Mode == "160000" || nested.inside(fl.Path)) {
				reason = LeftGitlink
			}
			if reason == "" && ignored[fl.Path] && !opts.Made[fl.Path] {
				reason = LeftIgnored
			}
			if reason == "" {
				fl.Class = "unattributed"
				if classify != nil {
					fl.Class = classify(fl.Path)
				}
				if fl.Class == "outside" && opts.Outside == "keep" {
					reason = LeftOutside
				}
			}
			if reason != "" {
				left[fl.Path] = reason
			}
		}
		really := maps.Clone(deleted)
		for p := range really {
			if left[p] != "" {
				delete(really, p)
			}
		}
		for _, fl := range files {
			if left[fl.Path] == "" && fl.Mode != git.AbsentMode {
				if reason := inTheWay(top, fl, really, left, opts.Paths); reason != "" {
					left[fl.Path] = reason
				}
			}
			if left[fl.Path] == "" {
				kept = append(kept, fl)
			}
		}
		return kept, left
	}
	kept, left := decide(ignored)
	// A .gitignore the plan leaves keeps its rules now: what the target's
	// version would ignore is then judged again by the rules the tree
	// will really have.
	stay := map[string]File{}
	for _, fl := range files {
		if left[fl.Path] != "" && path.Base(fl.Path) == ".gitignore" {
			stay[fl.Path] = fl
		}
	}
	if len(stay) > 0 {
		if ignored, err = ignoredByTarget(ctx, r, target.Tree, gone, stay); err != nil {
			return nil, err
		}
		kept, left = decide(ignored)
	}
	p.Files = kept
	for _, fl := range files {
		if reason := left[fl.Path]; reason != "" {
			p.Left = append(p.Left, Left{Path: fl.Path, Reason: reason})
		}
	}
	p.Left = append(p.Left, skippedHere(append(slices.Clone(skipped), target.Skipped...), p, opts.Paths)...)
	slices.SortFunc(p.Left, func(a, b Left) int { return strings.Compare(a.Path, b.Path) })
	p.ID = p.digest()
	return p, nil
}

// skippedHere lists, as left, the paths that were too big or unreadable to
// capture, now or in the checkpoint, and that the diff did not name, under
// the paths asked for or holding one of them: the
// rewind does not touch one that is there now (the current snapshot does
// not hold it) and cannot bring back one the checkpoint does not hold, so
// the result is not the checkpoint exactly, which the user should know.
func skippedHere(skipped []store.Skip, p *Plan, paths []string) []Left {
	named := map[string]bool{}
	for _, f := range p.Files {
		named[f.Path] = true
	}
	for _, l := range p.Left {
		named[l.Path] = true
	}
	var out []Left
	for _, s := range skipped {
		if !s.Unheld() || named[s.Path] || !Under(s.Path, paths) && !holdsAny(s.Path, paths) {
			continue
		}
		named[s.Path] = true
		out = append(out, Left{Path: s.Path, Reason: reasonFor(s.Reason)})
	}
	return out
}

// holdsAny reports whether one of paths is below dir: a skipped
// directory holds what a rewind of such a path would have written.
func holdsAny(dir string, paths []string) bool {
	for _, p := range paths {
		if strings.HasPrefix(p, dir+"/") {
			return true
		}
	}
	return false
}

// heldBy is the reason leave gives for path or for a directory it is in:
// a skipped directory (unreadable, or new files over
// checkpoint.maxTotalBytes) holds everything below it, which no
// checkpoint of the tree now has either.
func heldBy(leave map[string]string, name string) string {
	for p := name; p != "." && p != "/"; p = path.Dir(p) {
		if reason := leave[p]; reason != "" {
			return reason
		}
	}
	return ""
}

// Under reports whether path is one of paths or below one; no paths
// means the whole tree.
func Under(path string, paths []string) bool {
	if len(paths) == 0 {
		return true
	}
	for _, p := range paths {
		p = strings.TrimSuffix(p, "/")
		if p == "" || path == p || strings.HasPrefix(path, p+"/") {
			return true
		}
	}
	return false
}

func reasonFor(skip string) string {
	switch skip {
	case store.SkipUnsupported:
		return LeftUnsupported
	case store.SkipPathTooLong:
		return LeftPathTooLong
	case store.SkipWithheld:
		return LeftWithheld
	case store.SkipSkipWorktree:
		return LeftSkipWork
	case store.SkipNestedRepo:
		return LeftGitlink
	case store.SkipUnreadable:
		return LeftUnreadable
	}
	return LeftTooBig
}

func changeOf(oldMode, mode string) string {
	switch {
	case oldMode == git.AbsentMode:
		return Create
	case mode == git.AbsentMode:
		return Delete
	case kind(oldMode) != kind(mode):
		return Type
	}
	return Modify
}

func kind(mode string) string {
	switch mode {
	case "120000":
		return "symlink"
	case "160000":
		return "gitlink"
	}
	return "file"
}

// inTheWay says why fl cannot be written, or "": something the plan does
// not delete sits where the rewind must write fl or one of its leading
// directories. Either the checkpoints do not hold it (an ignored file or
// directory; ignored files are never overwritten, and nothing is written
// through a symlink), or the plan leaves it (left, with its reasons).
func inTheWay(top string, fl File, deleted map[string]bool, left map[string]string, paths []string) string {
	// blocked is the reason for what sits at rel, which the plan does not
	// delete: a path it leaves, one outside the paths a rewind of some
	// paths was given, or one no snapshot holds (ignored).
	blocked := func(rel string) string {
		switch r := left[rel]; {
		case r == "" && !Under(rel, paths):
			return LeftInWay
		case r == "":
			return LeftIgnoredInWay
		case r == LeftIgnored || r == LeftIgnoredInWay:
			return LeftIgnoredInWay
		}
		return LeftInWay
	}
	parts := strings.Split(fl.Path, "/")
	for i := 1; i < len(parts); i++ {
		dir := strings.Join(parts[:i], "/")
		fi, err := os.Lstat(filepath.Join(top, dir))
		if errors.Is(err, fs.ErrNotExist) {
			return "" // created by the rewind
		}
		if err != nil {
			return LeftIgnoredInWay
		}
		if fi.IsDir() {
			continue
		}
		if unsupported(fi) {
			return LeftUnsupported
		}
		// A file or symlink where a directory must be: fine only if the
		// plan deletes it first.
		if deleted[dir] {
			return ""
		}
		return blocked(dir)
	}
	fi, err := os.Lstat(filepath.Join(top, fl.Path))
	if errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	if err != nil {
		return LeftIgnoredInWay
	}
	if fi.IsDir() {
		if rel := firstKept(top, fl.Path, deleted); rel != "" {
			return blocked(rel)
		}
		return ""
	}
	if unsupported(fi) {
		// A FIFO or a socket, which git's walk does not see: no
		// snapshot holds it, ignored or not.
		return LeftUnsupported
	}
	if fl.OldMode == git.AbsentMode {
		// Something is there that the current snapshot does not hold: an
		// ignored file.
		return LeftIgnoredInWay
	}
	return ""
}

// unsupported reports whether fi is of a type git cannot store: no file,
// symbolic link or directory.
func unsupported(fi fs.FileInfo) bool {
	m := fi.Mode()
	return !m.IsRegular() && !m.IsDir() && m&fs.ModeSymlink == 0
}

// nestedRepos finds the nested repositories on a path's way. A directory
// captured while it was plain and made a repository later (`git init` in
// it) stays in the private index, so its files can show up in a plan; a
// rewind must still never write or delete inside another repository.
type nestedRepos struct {
	top  string
	seen map[string]bool // directory to "holds a .git"
}

// inside reports whether a leading directory of rel holds a .git.
func (n nestedRepos) inside(rel string) bool {
	parts := strings.Split(rel, "/")
	for i := 1; i < len(parts); i++ {
		dir := strings.Join(parts[:i], "/")
		is, ok := n.seen[dir]
		if !ok {
			_, err := os.Lstat(filepath.Join(n.top, dir, ".git"))
			is = err == nil
			n.seen[dir] = is
		}
		if is {
			return true
		}
	}
	return false
}

// firstKept returns a file below the directory dir that the plan does not
// delete, or "" when it holds nothing else (empty directories included:
// the rewind removes those), so that it will be gone before fl is written.
func firstKept(top, dir string, deleted map[string]bool) string {
	kept := ""
	filepath.WalkDir(filepath.Join(top, dir), func(path string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(top, path)
		rel = filepath.ToSlash(rel)
		if err != nil {
			kept = rel
			return filepath.SkipAll
		}
		if d.IsDir() {
			return nil
		}
		if !deleted[rel] {
			kept = rel
			return filepath.SkipAll
		}
		return nil
	})
	return kept
}

var planIDPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^p1-[0-9a-f]{16}$`) })

// IsPlanID reports whether id has the form digest gives plan ids.
func IsPlanID(id string) bool { return planIDPattern().MatchString(id) }

// digest is the plan id: "p1-" and 16 hex digits of the SHA-256 of the
// canonical JSON of everything the plan depends on.
func (p *Plan) digest() string {
	type entry [2]string
	doc := struct {
		Target  string  `json:"target"`
		Current string  `json:"current"`
		Head    string  `json:"head"`
		Options Options `json:"options"`
		Files   []entry `json:"files"`
		Left    []entry `json:"left"`
	}{Target: p.Target.Commit, Current: p.Current, Head: p.Head, Options: p.Options}
	for _, f := range p.Files {
		doc.Files = append(doc.Files, entry{f.Path, f.Change})
	}
	for _, l := range p.Left {
		doc.Left = append(doc.Left, entry{l.Path, l.Reason})
	}
	b, _ := json.Marshal(doc)
	sum := sha256.Sum256(b)
	return "p1-" + hex.EncodeToString(sum[:8])
}

// Whole reports whether the plan makes every difference between the tree
// and the target: it leaves no path and was not limited to some. Written
// in full, it gives the tree the target's tree.
func (p *Plan) Whole() bool { return len(p.Left) == 0 && len(p.Options.Paths) == 0 }

// Paths returns the plan's paths, sorted.
func (p *Plan) Paths() []string {
	out := make([]string, 0, len(p.Files))
	for _, f := range p.Files {
		out = append(out, f.Path)
	}
	slices.Sort(out)
	return out
}

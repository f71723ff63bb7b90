package git

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
)

// Repo describes the working tree a command runs in, found with a single
// rev-parse so that a hook pays for one git process, not five.
type Repo struct {
	Top       string // top of the working tree
	GitDir    string // this worktree's git directory
	CommonDir string // the repository's shared git directory
	StateDir  string // $(git rev-parse --git-path checkpoints)
	Index     string // the real index
	Prefix    string // the current directory relative to Top, "" or "dir/"
	Worktree  string // "main", or "wt-<name>" for a linked worktree
	Head      string // the commit HEAD names; "" when unborn
	Branch    string // "refs/heads/x", or "" when HEAD is detached
	Private   bool   // a private store outside any repository (FindPrivate)
}

// Discover finds the repository containing r.Dir. HEAD is resolved in the
// same process.
func Discover(ctx context.Context, r *Runner) (*Repo, error) {
	base := []string{"rev-parse", "--path-format=absolute", "--show-toplevel",
		"--absolute-git-dir", "--git-common-dir", "--git-path", "checkpoints",
		"--git-path", "index", "--show-prefix"}
	// With an unborn HEAD, rev-parse still prints every path and then
	// fails on HEAD alone; the paths are good, so no second call is needed.
	out, err := r.Run(ctx, Cmd{Args: append(base, "--verify", "-q", "HEAD")})
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) < 6 || lines[0] == "" {
		return nil, notAWorkTree(ctx, r, err)
	}
	want := 6
	if err == nil {
		want = 7
	}
	if len(lines) != want {
		// rev-parse has no -z: a newline in one of these paths (the
		// current directory's name, most likely) splits it over two
		// lines. Ask for each path alone, where only the last newline
		// is git's.
		if lines, err = discoverEach(ctx, r); err != nil {
			return nil, err
		}
	}
	repo := &Repo{
		Top: lines[0], GitDir: lines[1], CommonDir: lines[2],
		StateDir: lines[3], Index: lines[4], Prefix: lines[5],
	}
	if len(lines) > 6 {
		repo.Head = lines[6]
	}
	repo.Worktree = "main"
	if filepath.Clean(repo.GitDir) != filepath.Clean(repo.CommonDir) {
		repo.Worktree = "wt-" + filepath.Base(repo.GitDir)
	}
	repo.Branch = readBranch(repo.GitDir)
	return repo, nil
}

// Owns reports whether rel, a path from the top of the tree ("/"
// separated, a directory with or without its trailing slash), is the
// repository's own git directory (this worktree's or the common one)
// or below it. git's walk passes over a directory named .git and
// nothing else: a git directory elsewhere in the tree (dotfiles in a
// bare repository at ~/.dotfiles whose work tree is ~) is untracked
// files to it. A checkpoint never holds them: a rewind would write the
// index, refs and objects, and the store's own journal.
func (r *Repo) Owns(rel string) bool {
	rel = strings.TrimSuffix(rel, "/")
	top := filepath.ToSlash(filepath.Clean(r.Top)) + "/"
	for _, dir := range []string{r.GitDir, r.CommonDir} {
		own, ok := strings.CutPrefix(filepath.ToSlash(filepath.Clean(dir)), top)
		if ok && (rel == own || strings.HasPrefix(rel, own+"/")) {
			return true
		}
	}
	return false
}

// discoverEach runs one rev-parse per path Discover asks for (and one for HEAD),
// for paths that hold newlines.
func discoverEach(ctx context.Context, r *Runner) ([]string, error) {
	queries := [][]string{{"--show-toplevel"}, {"--absolute-git-dir"}, {"--git-common-dir"},
		{"--git-path", "checkpoints"}, {"--git-path", "index"}, {"--show-prefix"}}
	var lines []string
	for _, q := range queries {
		out, err := r.Run(ctx, Cmd{Args: append([]string{"rev-parse", "--path-format=absolute"}, q...)})
		if err != nil {
			return nil, notARepo(err)
		}
		lines = append(lines, strings.TrimSuffix(string(out), "\n"))
	}
	if out, err := r.Run(ctx, Cmd{Args: []string{"rev-parse", "--verify", "-q", "HEAD"}}); err == nil {
		lines = append(lines, strings.TrimSuffix(string(out), "\n"))
	}
	return lines, nil
}

// readBranch reads HEAD's symbolic target from the file itself: git 2.39
// has only the files backend for HEAD, and this saves a process per hook.
func readBranch(gitDir string) string {
	b, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return ""
	}
	ref, ok := bytes.CutPrefix(bytes.TrimSpace(b), []byte("ref: "))
	if !ok {
		return ""
	}
	return string(ref)
}

// notAWorkTree explains why Discover found no working tree. Inside a git
// directory (.git, anything below it, a bare repository) git itself works,
// but there is no tree to checkpoint, and a private store made there would
// take the repository's own files for a tree to rewind.
func notAWorkTree(ctx context.Context, r *Runner, err error) error {
	out, gerr := r.Run(ctx, Cmd{Args: []string{"rev-parse", "--path-format=absolute",
		"--is-inside-git-dir", "--is-bare-repository", "--absolute-git-dir"}})
	f := strings.SplitN(strings.TrimSuffix(string(out), "\n"), "\n", 3)
	if gerr != nil || len(f) != 3 || f[0] != "true" {
		return notARepo(err)
	}
	gitDir := f[2]
	if f[1] == "true" {
		return fault.New(fault.UnsupportedGitDirectory, "%s is a bare repository, which has no working tree to checkpoint", fault.Quote(gitDir)).
			WithHint("checkpoint a clone of it, or a worktree: git worktree add PATH")
	}
	e := fault.New(fault.UnsupportedGitDirectory, "%s is a git directory, which has no working tree to checkpoint", fault.Quote(gitDir))
	if top, terr := r.Run(ctx, Cmd{Args: []string{"--git-dir=" + gitDir, "rev-parse", "--path-format=absolute", "--show-toplevel"}, Dir: filepath.Dir(gitDir)}); terr == nil {
		return e.WithHint("run it in the working tree above it: cd " + fault.Quote(strings.TrimSuffix(string(top), "\n")))
	}
	return e.WithHint("run it in the repository's working tree")
}

// IsRefusal reports whether err is Discover's answer where a repository
// is, but gives no tree to checkpoint: inside a git directory or a bare
// repository, or one git refuses for its owner. Nothing else (a private
// store above, init) may be tried there.
func IsRefusal(err error) bool {
	var fe *fault.Error
	return errors.As(err, &fe) && (fe.Code == fault.UnsupportedGitDirectory || fe.Code == fault.UnsupportedDubiousOwner)
}

func notARepo(err error) error {
	if e := dubiousOwnership(err); e != nil {
		return e
	}
	e := fault.Wrap(nil, fault.UnsupportedNoRepository, "not in a git working tree")
	e.Err = err
	return e.WithHint("run it inside a git repository, or create a private store here with 'git checkpoint init'")
}

// dubiousOwnership passes on git's refusal of a repository another user
// owns (safe.directory), with the command git itself suggests: it is no
// "not in a repository", and a private store made there would sit inside
// someone else's work tree. nil when err is no such refusal.
func dubiousOwnership(err error) error {
	var ge *Error
	if !errors.As(err, &ge) {
		return nil
	}
	const marker = "detected dubious ownership in repository at "
	var where, exception string
	for _, line := range strings.Split(ge.Stderr, "\n") {
		line = strings.TrimSpace(line)
		if _, rest, ok := strings.Cut(line, marker); ok {
			where = strings.Trim(rest, "'")
		}
		if strings.HasPrefix(line, "git config ") && strings.Contains(line, "safe.directory") {
			exception = line
		}
	}
	if where == "" {
		return nil
	}
	e := fault.New(fault.UnsupportedDubiousOwner, "git refuses the repository at %s: detected dubious ownership (it belongs to another user)", fault.Quote(where))
	e.Err = err
	if exception == "" {
		exception = "git config --global --add safe.directory " + where
	}
	return e.WithHint("if you trust its owner: " + exception)
}

// An Operation is a git operation in progress, with the words that end
// it: each has its own (git bisect has no --continue, am is no rebase).
type Operation struct {
	Name     string // merge, rebase, am, cherry-pick, revert or bisect
	Continue string // the command that finishes it; "" for bisect
	Abort    string // the command that abandons it
}

// Noun names the operation in a sentence: "a merge", "a git am".
func (o *Operation) Noun() string {
	if o.Name == "am" {
		return "a git am"
	}
	return "a " + o.Name
}

// Ending says how to end the operation, for a hint.
func (o *Operation) Ending() string {
	if o.Continue == "" {
		return "end it first with '" + o.Abort + "'"
	}
	return "finish it with '" + o.Continue + "' or abort it with '" + o.Abort + "' first"
}

// Operation returns the git operation in progress (merge, rebase, am,
// cherry-pick, revert, bisect), or nil when none is. A rewind in the
// middle of one would mix its files with the operation's own state.
func (r *Repo) Operation() *Operation {
	op := func(name string) *Operation {
		return &Operation{Name: name, Continue: "git " + name + " --continue", Abort: "git " + name + " --abort"}
	}
	exists := func(file string) bool {
		_, err := os.Lstat(filepath.Join(r.GitDir, file))
		return err == nil
	}
	switch {
	case exists("MERGE_HEAD"):
		return op("merge")
	case exists("rebase-merge"):
		return op("rebase")
	case exists("rebase-apply/applying"):
		return op("am") // git am keeps its state where rebase's apply backend does
	case exists("rebase-apply"):
		return op("rebase")
	case exists("CHERRY_PICK_HEAD"):
		return op("cherry-pick")
	case exists("REVERT_HEAD"):
		return op("revert")
	case exists("BISECT_LOG"):
		return &Operation{Name: "bisect", Abort: "git bisect reset"}
	}
	return nil
}

// MovedByEnv reports whether a variable points git at a repository or a
// work tree other than the one discovery from the directory finds, or
// changes how far up it looks.
func MovedByEnv(env []string) bool {
	return setIn(env, "GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM")
}

// ObjectDir is repo's object directory, where WritePack may write packs
// itself: "" when GIT_OBJECT_DIRECTORY moves it, or when shared (the
// configuration's core.sharedRepository) asks for permissions that git
// alone gives its files.
func ObjectDir(env []string, repo *Repo, shared bool) string {
	if shared || setIn(env, "GIT_OBJECT_DIRECTORY") {
		return ""
	}
	return filepath.Join(repo.CommonDir, "objects")
}

// EnclosingWorkTree returns the first directory from dir up that holds a
// `.git` entry of any kind (a directory, a linked worktree's or a
// submodule's file), or "": the top of a work tree whether or not git
// opens it from dir (GIT_CEILING_DIRECTORIES, another filesystem, a
// damaged repository). A private store there would be captured by it.
func EnclosingWorkTree(dir string) string {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if d == filepath.Dir(d) {
			return ""
		}
	}
}

// GuessRepository finds the first directory from dir up that holds a
// `.git` entry, as git's discovery does, and returns it (symlinks
// resolved, as rev-parse --show-toplevel gives it) with its git
// directory. ok is false unless that entry is a directory holding a HEAD:
// a `.git` file (a linked worktree, a submodule) or anything git would
// pass over is left to discovery.
func GuessRepository(dir string) (top, gitDir string, ok bool) {
	for d := dir; ; {
		fi, err := os.Lstat(filepath.Join(d, ".git"))
		if err == nil {
			if !fi.IsDir() {
				return "", "", false
			}
			if _, err := os.Stat(filepath.Join(d, ".git", "HEAD")); err != nil {
				return "", "", false
			}
			real, err := filepath.EvalSymlinks(d)
			if err != nil {
				return "", "", false
			}
			return real, filepath.Join(real, ".git"), true
		}
		up := filepath.Dir(d)
		if up == d {
			return "", "", false
		}
		d = up
	}
}

package git

import (
	"context"
	"os"
	"path/filepath"
)

// A private store (DESIGN 5.5) keeps checkpoints of a directory that is in
// no git repository: a git directory inside a hidden folder at its top,
// which git is pointed at with GIT_DIR and GIT_WORK_TREE. Plain git in that
// directory still says "not a git repository": the store is the tool's, not
// a repository the user asked for.
const (
	PrivateFolder = ".git-checkpoint"
	privateGitDir = "git"
)

// FindPrivate walks up from dir to the root looking for a private store
// and returns the directory that holds it, or "". It is only consulted when
// dir is in no git repository: a repository always wins.
func FindPrivate(dir string) string {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if fi, err := os.Stat(filepath.Join(d, PrivateFolder, privateGitDir, "HEAD")); err == nil && fi.Mode().IsRegular() {
			return d
		}
		if d == filepath.Dir(d) {
			return ""
		}
	}
}

// PrivateEnv is what points git at the private store of top.
func PrivateEnv(top string) []string {
	return []string{"GIT_DIR=" + filepath.Join(top, PrivateFolder, privateGitDir), "GIT_WORK_TREE=" + top}
}

// InitPrivate creates the private store of top: a git directory that is not
// bare (so it has a working tree and an index, given by GIT_WORK_TREE), and
// that excludes its own folder, so no checkpoint ever holds the store.
func InitPrivate(ctx context.Context, r *Runner, top string) error {
	gitDir := filepath.Join(top, PrivateFolder, privateGitDir)
	if _, err := r.Run(ctx, Cmd{Args: []string{"init", "--quiet", "--bare", gitDir}, Dir: top}); err != nil {
		return err
	}
	if _, err := r.Run(ctx, Cmd{Args: []string{"--git-dir=" + gitDir, "config", "core.bare", "false"}, Dir: top}); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(gitDir, "info"), 0o755); err != nil {
		return err
	}
	exclude := "# git-checkpoint's private stores, here or in a directory below: never captured\n" + PrivateFolder + "/\n"
	if err := os.WriteFile(filepath.Join(gitDir, "info", "exclude"), []byte(exclude), 0o644); err != nil {
		return err
	}
	return IgnorePrivate(top)
}

// IgnorePrivate makes the private store of top ignore itself for any
// repository around it, as Python's venvs do: a .gitignore of "*" in its
// folder. A `git init` there later would otherwise see the store as
// untracked files, and its first checkpoint would copy the store's
// objects (earlier untracked files, .env too) into the repository. The
// store's own exclude file keeps it out of its own checkpoints; this one
// is for the others. It writes only when the file is missing (a store
// made before it had one gets it when next used).
func IgnorePrivate(top string) error {
	path := filepath.Join(top, PrivateFolder, ".gitignore")
	if _, err := os.Lstat(path); err == nil {
		return nil
	}
	const ignore = "# git-checkpoint's private store: never part of a repository around it\n*\n"
	return os.WriteFile(path, []byte(ignore), 0o644)
}

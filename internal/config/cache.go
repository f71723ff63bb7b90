package config

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/durable"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
)

// Every command reads the configuration, and `git config` is a process:
// beside discovery it costs a hook nothing on idle cores, but ten hooks
// of parallel tool calls start twenty git processes at once on a
// machine's few cores, and their ten `git config` were a fifth of the
// time all ten took (docs/speed.md, "The configuration and discovery,
// kept"). So the answer is kept in a file of the store, beside what it was read from:
// the variables git reads configuration by, and the size, modification
// time and inode of every file it reads it from, present or not. A
// command believes the file only when all of those are unchanged and the
// answer is younger than cacheFor, and reads git again otherwise.
//
// git writes its configuration files whole, into a new file renamed over
// the old (a new inode), and editors change the size or the modification
// time (in nanoseconds), so an edit is seen by the next command. Files the
// answer cannot name are another matter: an include (include.path,
// includeIf) names files that may change without these, so a
// configuration with one is never kept; and a system file created at a
// place other than git's usual /etc/gitconfig (a git built with another
// prefix) counts from the next read of git, at most cacheFor later.
//
// Discovery (git.Discover, a rev-parse) is kept in the same file, for the
// directory it ran from, beside a stamp of its own: the files git finds
// the repository and HEAD by (HEAD, the ref it names, packed-refs, a
// reftable directory that must not exist) and the owner and inode of the
// working tree and its .git, against the user running. git writes refs
// as it writes configuration, into a new file renamed over the old, so a
// commit, a checkout or a reset is seen by the next command. It is kept
// only for a .git directory (the guess's) and believed only with the
// configuration's own stamp, which names what moves a working tree
// (core.worktree) or makes it dubious (safe.directory).

// cacheFor bounds how long an answer is believed: long enough for the
// hooks of a turn, short enough that what no stamp can see is read again
// soon.
const cacheFor = time.Minute

// cacheVersion changes with the format or with the keys Load asks for.
const cacheVersion = 6

// Cache is the kept answer of one repository's configuration, and of
// discovery in it.
type Cache struct {
	top, gitDir string // the guessed repository's
	stamp       cacheStamp
	repoStamp   repoStamp
	head        string // the HEAD file as repoStamp was taken
	now         time.Time
	// file is what the store held when the cache was made, if it was
	// well formed.
	file *cacheFile
	// kept says Load's answer came from the file; fresh is what it read
	// from git instead, when that may be kept (save).
	kept  bool
	save  bool
	fresh []git.ConfigEntry
}

// cacheStamp is what an answer was read from.
type cacheStamp struct {
	Env   string      `json:"env"` // hash of the variables git reads it by
	Files []fileStamp `json:"files"`
}

type fileStamp struct {
	Path  string `json:"path"`
	Size  int64  `json:"size,omitempty"`
	Mtime int64  `json:"mtime,omitempty"` // nanoseconds
	Ino   uint64 `json:"ino,omitempty"`
	Gone  bool   `json:"gone,omitempty"` // no such file
}

// repoStamp is what discovery's answer was found from.
type repoStamp struct {
	Env    string      `json:"env"` // what else moves it (repoEnv)
	Files  []fileStamp `json:"files"`
	Owners []owner     `json:"owners"`
}

// owner is a directory as git's ownership check (safe.directory) and
// discovery see it: not its modification time, which every file made in
// it changes.
type owner struct {
	Path string `json:"path"`
	Ino  uint64 `json:"ino"`
	UID  uint32 `json:"uid"`
}

// keptRepo is discovery's answer, for the directory it ran from.
type keptRepo struct {
	At    int64     `json:"at"`
	Dir   string    `json:"dir"`
	Stamp repoStamp `json:"stamp"`
	Repo  git.Repo  `json:"repo"`
}

// cacheFile is the file a Cache keeps.
type cacheFile struct {
	Version int               `json:"v"`
	At      int64             `json:"at"` // when git answered, in nanoseconds
	Stamp   cacheStamp        `json:"stamp"`
	Entries []git.ConfigEntry `json:"entries"`
	Repo    *keptRepo         `json:"repo,omitempty"`
}

// NewCache returns the cache of the repository git.GuessRepository
// guessed, top and its git directory gitDir (its store is
// gitDir/checkpoints), for git run with env at now. Its stamps are taken
// here, before git reads anything: a file that changes while git reads it
// then differs from the stamp, and is read again.
func NewCache(top, gitDir string, env []string, now time.Time) *Cache {
	c := &Cache{
		top:    top,
		gitDir: gitDir,
		stamp:  cacheStamp{Env: envHash(env), Files: stampFiles(configFiles(gitDir, env))},
		now:    now,
	}
	c.repoStamp, c.head = stampRepo(top, gitDir, env)
	var f cacheFile
	if b, err := os.ReadFile(c.path()); err == nil && json.Unmarshal(b, &f) == nil && f.Version == cacheVersion {
		c.file = &f
	}
	return c
}

func (c *Cache) path() string { return filepath.Join(c.gitDir, "checkpoints", "config.cache") }

// Load is the package's Load, from the kept answer when it still holds.
// A nil Cache always reads git.
func (c *Cache) Load(ctx context.Context, r *git.Runner) (Config, error) {
	if c == nil {
		return Load(ctx, r)
	}
	if entries, ok := c.read(); ok {
		c.kept = true
		return parse(entries, r.Env)
	}
	entries, err := r.ConfigGetRegexp(ctx, keys)
	if err != nil {
		return Default(), err
	}
	c.fresh, c.save = entries, !slices.ContainsFunc(entries, isInclude)
	return parse(entries, r.Env)
}

// Repo returns discovery's kept answer for the directory dir, when it
// and the configuration's still hold: the same stamps, both younger than
// cacheFor, and the repository the guess found. The caller then needs
// neither discovery nor git's configuration (Load answers from the file).
func (c *Cache) Repo(dir string) (*git.Repo, bool) {
	if c == nil || c.file == nil || c.file.Repo == nil {
		return nil, false
	}
	k := c.file.Repo
	if _, ok := c.read(); !ok || !c.young(k.At) || k.Dir != dir ||
		k.Repo.Top != c.top || k.Repo.GitDir != c.gitDir || !reflect.DeepEqual(k.Stamp, c.repoStamp) {
		return nil, false
	}
	repo := k.Repo
	return &repo, true
}

// Settle is called once discovery has found repo from the directory dir,
// with the answer Load gave. NewCache was given a guess of its git
// directory: when the guess holds, what Load read from git is kept, if it
// may be, and so is repo (keepRepo); when it does not and the answer came
// from the guessed repository's file, it is another repository's, and
// again says to read git. (An answer read from git is right whatever the
// guess: git ran where discovery did.) Nothing is created but the file: a
// store that does not exist yet gets none, and a failure to write it
// costs only the next command a `git config` and a rev-parse.
func (c *Cache) Settle(repo *git.Repo, dir string) (again bool) {
	if c == nil {
		return false
	}
	if filepath.Clean(repo.GitDir) != c.gitDir || filepath.Clean(repo.CommonDir) != c.gitDir {
		return c.kept
	}
	f := cacheFile{Version: cacheVersion, At: c.now.UnixNano(), Stamp: c.stamp, Entries: c.fresh}
	switch {
	case c.save:
	case c.kept:
		f.At, f.Entries = c.file.At, c.file.Entries // the answer as it was kept
	default:
		return false
	}
	if c.keepRepo(repo) {
		f.Repo = &keptRepo{At: c.now.UnixNano(), Dir: dir, Stamp: c.repoStamp, Repo: *repo}
	} else if c.kept {
		return false // nothing new to keep
	}
	b, err := json.Marshal(f)
	if err != nil {
		return false
	}
	// Hooks run at once write it at once: each its own file, renamed.
	// Not synced: a cache whose answer is checked against the files it
	// stands for before it is used.
	_ = durable.Replace(c.path(), b, durable.How{Racing: true})
	return false
}

// read returns the kept answer, when there is one that still holds.
func (c *Cache) read() ([]git.ConfigEntry, bool) {
	f := c.file
	if f == nil || !c.young(f.At) || f.Stamp.Env != c.stamp.Env || !slices.Equal(f.Stamp.Files, c.stamp.Files) {
		return nil, false
	}
	return f.Entries, true
}

// young reports whether an answer git gave at (nanoseconds) is young
// enough to believe.
func (c *Cache) young(at int64) bool {
	age := c.now.Sub(time.Unix(0, at))
	return age >= 0 && age <= cacheFor
}

// keepRepo reports whether discovery's answer repo may be kept: it is the
// guessed working tree's, with no reftable (whose files no stamp names),
// and HEAD says now what git said, read as git reads it (files backend):
// a detached HEAD's commit, or the branch it names, whose loose ref, if
// there is one, holds that commit itself and not another ref's name.
func (c *Cache) keepRepo(repo *git.Repo) bool {
	if repo.Private || repo.Top != c.top || repo.GitDir != c.gitDir || repo.Worktree != "main" || !slices.ContainsFunc(c.repoStamp.Files, func(f fileStamp) bool {
		return f.Path == filepath.Join(c.gitDir, "reftable") && f.Gone
	}) {
		return false
	}
	if c.head == "" {
		return false
	}
	target, symbolic := headRef(c.head)
	if !symbolic {
		return repo.Branch == "" && target == repo.Head
	}
	if target != repo.Branch {
		return false
	}
	loose, err := os.ReadFile(filepath.Join(c.gitDir, filepath.FromSlash(target)))
	return errors.Is(err, fs.ErrNotExist) || (err == nil && strings.TrimSpace(string(loose)) == repo.Head && repo.Head != "")
}

// stampRepo stamps what discovery in top, whose git directory is gitDir,
// finds the repository and HEAD by (see Repo), and returns the HEAD file
// as it read it ("" when it could not), which keepRepo compares with
// git's answer, so that what is kept agrees with the HEAD the stamp
// describes (and HEAD is read once).
func stampRepo(top, gitDir string, env []string) (repoStamp, string) {
	files := []string{filepath.Join(gitDir, "HEAD"), filepath.Join(gitDir, "packed-refs"), filepath.Join(gitDir, "reftable")}
	head := ""
	if b, err := os.ReadFile(filepath.Join(gitDir, "HEAD")); err == nil {
		head = string(b)
		if target, ok := headRef(head); ok {
			files = append(files, filepath.Join(gitDir, filepath.FromSlash(target)))
		}
	}
	var owners []owner
	for _, d := range []string{top, gitDir} {
		o := owner{Path: d}
		if fi, err := os.Stat(d); err == nil {
			if st, ok := fi.Sys().(*syscall.Stat_t); ok {
				o.Ino, o.UID = uint64(st.Ino), st.Uid
			}
		}
		owners = append(owners, o)
	}
	return repoStamp{Env: repoEnv(env), Files: stampFiles(files), Owners: owners}, head
}

// headRef reads a HEAD file: the ref it names (symbolic, under refs/), or
// else its content, a detached HEAD's commit.
func headRef(head string) (target string, symbolic bool) {
	target, symbolic = strings.CutPrefix(strings.TrimSpace(head), "ref: ")
	return target, symbolic && strings.HasPrefix(target, "refs/")
}

// repoEnv is what, beside the variables that make the cache unused
// (git.MovedByEnv) and the configuration's, moves discovery's answer:
// the user running (git's ownership check) and GIT_NAMESPACE (which ref
// HEAD resolves through).
func repoEnv(env []string) string {
	ns := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GIT_NAMESPACE="); ok {
			ns = v
		}
	}
	return strconv.Itoa(os.Geteuid()) + "\x00" + ns
}

// configFiles is every file git may read the configuration from, given
// env and the git directory: more than it reads (a file that the
// variables turn off, the other of the two global places) only costs a
// read of git when one of those changes.
func configFiles(gitDir string, env []string) []string {
	get := func(name string) string {
		v := ""
		for _, kv := range env {
			if k, val, ok := strings.Cut(kv, "="); ok && k == name {
				v = val
			}
		}
		return v
	}
	files := []string{"/etc/gitconfig"}
	home, xdg := get("HOME"), get("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	if xdg != "" {
		files = append(files, filepath.Join(xdg, "git", "config"))
	}
	if home != "" {
		files = append(files, filepath.Join(home, ".gitconfig"))
	}
	for _, name := range []string{"GIT_CONFIG_SYSTEM", "GIT_CONFIG_GLOBAL", "GIT_CONFIG"} {
		if p := get(name); p != "" {
			files = append(files, p)
		}
	}
	return append(files, filepath.Join(gitDir, "config"), filepath.Join(gitDir, "config.worktree"))
}

// stampFiles stats each file as git opens it (following symlinks).
func stampFiles(paths []string) []fileStamp {
	out := make([]fileStamp, len(paths))
	for i, p := range paths {
		out[i] = fileStamp{Path: p}
		fi, err := os.Stat(p)
		if err != nil {
			out[i].Gone = true
			continue
		}
		out[i].Size, out[i].Mtime = fi.Size(), fi.ModTime().UnixNano()
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			out[i].Ino = uint64(st.Ino)
		}
	}
	return out
}

// envHash hashes the variables git finds its configuration by: the
// GIT_CONFIG* family (GIT_CONFIG_PARAMETERS carries `git -c`;
// GIT_CONFIG_COUNT and its pairs, GIT_CONFIG_NOSYSTEM, _SYSTEM, _GLOBAL),
// the repository's (GIT_DIR, GIT_COMMON_DIR), the global file's (HOME,
// XDG_CONFIG_HOME), and PATH, which picks the git, and with it the system
// file. PATH is taken as the caller's: git running `git checkpoint` puts
// its exec path (GIT_EXEC_PATH) first on it, which a hook running
// git-checkpoint does not, and that is the same git. The other variables
// leave the configuration as it is.
func envHash(env []string) string {
	execPath := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GIT_EXEC_PATH="); ok {
			execPath = v
		}
	}
	var keep []string
	for _, kv := range env {
		switch name, val, _ := strings.Cut(kv, "="); {
		case name == "PATH":
			if rest, ok := strings.CutPrefix(val, execPath+string(os.PathListSeparator)); ok && execPath != "" {
				kv = "PATH=" + rest
			}
			keep = append(keep, kv)
		case strings.HasPrefix(name, "GIT_CONFIG"), name == "GIT_DIR", name == "GIT_COMMON_DIR",
			name == "HOME", name == "XDG_CONFIG_HOME":
			keep = append(keep, kv)
		}
	}
	slices.Sort(keep)
	sum := sha256.Sum256([]byte(strings.Join(keep, "\x00")))
	return hex.EncodeToString(sum[:])
}

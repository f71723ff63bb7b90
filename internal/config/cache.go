package config

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/git"
)

// Every command reads the configuration, and `git config` is a process:
// beside discovery it costs a hook nothing on idle cores, but ten hooks
// of parallel tool calls start twenty git processes at once on a
// machine's few cores, and their ten `git config` were a fifth of the
// time all ten took (docs/speed.md, "The configuration, kept"). So the
// answer is kept in a file of the store, beside what it was read from:
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

// cacheFor bounds how long an answer is believed: long enough for the
// hooks of a turn, short enough that what no stamp can see is read again
// soon.
const cacheFor = time.Minute

// cacheVersion changes with the format or with the keys Load asks for.
const cacheVersion = 1

// Cache is the kept answer of one repository's configuration.
type Cache struct {
	path  string
	stamp cacheStamp
	now   time.Time
	fresh []git.ConfigEntry // what Load read from git, for Save
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

// cacheFile is the file a Cache keeps.
type cacheFile struct {
	Version int         `json:"v"`
	At      int64       `json:"at"` // when git answered, in nanoseconds
	Stamp   cacheStamp  `json:"stamp"`
	Entries [][2]string `json:"entries"`
}

// NewCache returns the cache of the repository whose git directory is
// gitDir (its store is gitDir/checkpoints), for git run with env at now.
// Its stamp is taken here, before git reads anything: a file that changes
// while git reads it then differs from the stamp, and is read again.
func NewCache(gitDir string, env []string, now time.Time) *Cache {
	return &Cache{
		path:  filepath.Join(gitDir, "checkpoints", "config.cache"),
		stamp: cacheStamp{Env: envHash(env), Files: stampFiles(configFiles(gitDir, env))},
		now:   now,
	}
}

// Load is the package's Load, from the kept answer when it still holds.
// A nil Cache always reads git.
func (c *Cache) Load(ctx context.Context, r *git.Runner) (Config, error) {
	if c == nil {
		return Load(ctx, r)
	}
	if entries, ok := c.read(); ok {
		return parse(entries)
	}
	entries, err := r.ConfigGetRegexp(ctx, keys)
	if err != nil {
		return Default(), err
	}
	if !slices.ContainsFunc(entries, isInclude) {
		c.fresh = entries
	}
	return parse(entries)
}

// Save keeps what Load read from git, if it read git and the answer may
// be kept. The caller calls it once discovery has said gitDir is the
// repository's: a guess of it is what NewCache was given. Nothing is
// created but the file: a store that does not exist yet gets none. A
// failure to write it costs only the next command a `git config`.
func (c *Cache) Save() {
	if c == nil || c.fresh == nil {
		return
	}
	f := cacheFile{Version: cacheVersion, At: c.now.UnixNano(), Stamp: c.stamp, Entries: [][2]string{}}
	for _, e := range c.fresh {
		f.Entries = append(f.Entries, [2]string{e.Key, e.Value})
	}
	b, err := json.Marshal(f)
	if err != nil {
		return
	}
	// Hooks run at once write it at once: each its own file, renamed.
	tmp, err := os.CreateTemp(filepath.Dir(c.path), "config.cache-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(b)
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), c.path) != nil {
		os.Remove(tmp.Name())
	}
}

// read returns the kept answer, when there is one that still holds.
func (c *Cache) read() ([]git.ConfigEntry, bool) {
	b, err := os.ReadFile(c.path)
	if err != nil {
		return nil, false
	}
	var f cacheFile
	if json.Unmarshal(b, &f) != nil || f.Version != cacheVersion {
		return nil, false
	}
	age := c.now.Sub(time.Unix(0, f.At))
	if age < 0 || age > cacheFor || f.Stamp.Env != c.stamp.Env || !slices.Equal(f.Stamp.Files, c.stamp.Files) {
		return nil, false
	}
	entries := make([]git.ConfigEntry, len(f.Entries))
	for i, e := range f.Entries {
		entries[i] = git.ConfigEntry{Key: e[0], Value: e[1]}
	}
	return entries, true
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
// file. The others (GIT_EXEC_PATH, which git sets for `git checkpoint`
// and not for a hook that runs git-checkpoint) leave it as it is.
func envHash(env []string) string {
	var keep []string
	for _, kv := range env {
		switch name, _, _ := strings.Cut(kv, "="); {
		case strings.HasPrefix(name, "GIT_CONFIG"), name == "GIT_DIR", name == "GIT_COMMON_DIR",
			name == "HOME", name == "XDG_CONFIG_HOME", name == "PATH":
			keep = append(keep, kv)
		}
	}
	slices.Sort(keep)
	sum := sha256.Sum256([]byte(strings.Join(keep, "\x00")))
	return hex.EncodeToString(sum[:])
}

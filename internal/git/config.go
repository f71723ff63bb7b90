package git

import (
	"context"
	"strings"
)

// ConfigEntry is one configuration value; a key set several times comes
// once per value, in the order git reads them (the last one wins).
type ConfigEntry struct {
	Key, Value string
	// Scope is where git found it: system, global, local, worktree or
	// command (git -c, GIT_CONFIG_PARAMETERS, GIT_CONFIG_COUNT). An
	// included file has the scope of the file that includes it.
	Scope string `json:",omitempty"`
	// Origin is git's --show-origin: "file:" and the file's path (which
	// git may give relative to the top of the working tree), "command
	// line:", "blob:...".
	Origin string `json:",omitempty"`
}

// ConfigGetRegexp reads every configuration value whose key matches
// pattern (a regular expression) in one `git config -z --get-regexp`,
// with the scope and the file of each (--show-scope, --show-origin: a
// setting may count only from some scopes). No match is no entries, not
// an error. With -z each value comes as its scope, its origin and then
// "key\nvalue", each ended by a NUL: a value may hold newlines, and a key
// given without "=" (a bare boolean) has no newline and an empty value.
func (r *Runner) ConfigGetRegexp(ctx context.Context, pattern string) ([]ConfigEntry, error) {
	// User: the pinned -c options would be read back as the user's
	// (core.fsmonitor=false above a hook the user set).
	out, err := r.Run(ctx, Cmd{Args: []string{"config", "-z", "--show-scope", "--show-origin", "--get-regexp", pattern}, User: true})
	if err != nil {
		if NoMatch(err) {
			return nil, nil
		}
		return nil, err
	}
	return parseConfig(out), nil
}

// ConfigGet reads the last value of one key (`git config -z --get`), as
// the user configured it; ok is false when the key is not set.
func (r *Runner) ConfigGet(ctx context.Context, key string) (value string, ok bool, err error) {
	out, err := r.Run(ctx, Cmd{Args: []string{"config", "-z", "--get", key}, User: true})
	if err != nil {
		if NoMatch(err) {
			return "", false, nil
		}
		return "", false, err
	}
	return strings.TrimSuffix(string(out), "\x00"), true, nil
}

func parseConfig(out []byte) []ConfigEntry {
	var entries []ConfigEntry
	items := SplitNUL(out)
	for i := 0; i+2 < len(items); i += 3 {
		key, val, _ := strings.Cut(items[i+2], "\n")
		if key != "" {
			entries = append(entries, ConfigEntry{Key: key, Value: val, Scope: items[i], Origin: items[i+1]})
		}
	}
	return entries
}

// GitPath returns the absolute path git uses for name inside the git
// directory (--git-path): it knows which names live in the common
// directory of linked worktrees.
func (r *Runner) GitPath(ctx context.Context, name string) (string, error) {
	return r.gitPath(ctx, name, false)
}

// UserGitPath is GitPath under the user's configuration, for the hooks:
// their place follows core.hooksPath, which the pinned configuration
// points at /dev/null.
func (r *Runner) UserGitPath(ctx context.Context, name string) (string, error) {
	return r.gitPath(ctx, name, true)
}

func (r *Runner) gitPath(ctx context.Context, name string, user bool) (string, error) {
	out, err := r.Run(ctx, Cmd{Args: []string{"rev-parse", "--path-format=absolute", "--git-path", name}, User: user})
	if err != nil {
		return "", err
	}
	// Only the last newline is git's: a path may end with a space.
	return strings.TrimSuffix(string(out), "\n"), nil
}

package git

import (
	"context"
	"strings"
)

// ConfigEntry is one configuration value; a key set several times comes
// once per value.
type ConfigEntry struct{ Key, Value string }

// ConfigGetRegexp reads every configuration value whose key matches
// pattern (a regular expression) in one `git config -z --get-regexp`. No
// match is no entries, not an error. With -z a value may hold newlines: the
// key ends at the first newline and the value at the NUL; a key given
// without "=" (a bare boolean) has no newline and an empty value.
func (r *Runner) ConfigGetRegexp(ctx context.Context, pattern string) ([]ConfigEntry, error) {
	// User: the pinned -c options would be read back as the user's
	// (core.fsmonitor=false above a hook the user set).
	out, err := r.Run(ctx, Cmd{Args: []string{"config", "-z", "--get-regexp", pattern}, User: true})
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
	for _, item := range splitNUL(out) {
		key, val, _ := strings.Cut(item, "\n")
		if key != "" {
			entries = append(entries, ConfigEntry{Key: key, Value: val})
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

package agents

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sync"

	"github.com/git-checkpoint/git-checkpoint/internal/durable"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// Carried says whether an agent's conversation can travel with a store's
// checkpoints (push --with-conversation): its transcript is one file a
// session id names, which the agent finds again by the session id and the
// directory it runs in. Claude Code's is; the others keep their sessions
// in databases or under ids of their own.
func Carried(agent string) bool {
	a, ok := Lookup(agent)
	return ok && a.carried
}

// claudeSlugUnsafe is what Claude Code replaces with "-" when it makes a
// project's directory name of the path it runs in.
var claudeSlugUnsafe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^A-Za-z0-9]`) })

// claudeSlugMax is the longest project directory name Claude Code uses
// as it is; it shortens longer ones with a hash of its own.
const claudeSlugMax = 200

// sessionName is a session id that is safe as a file name.
var sessionName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`) })

// TranscriptName is the file name a carried session's transcript travels
// under, or "" when the session id is not one that may name a file.
func TranscriptName(session string) string {
	if !sessionName().MatchString(session) {
		return ""
	}
	return session + ".jsonl"
}

// TranscriptPath is where Claude Code looks for the transcript of session
// when it runs in dir (absolute, symlinks resolved, as the agent sees its
// working directory): $CLAUDE_CONFIG_DIR, else ~/.claude, then
// projects/<dir with every character outside [A-Za-z0-9] as "-">/<session>.jsonl.
func TranscriptPath(env Env, dir, session string) (string, error) {
	name := TranscriptName(session)
	if name == "" {
		return "", fmt.Errorf("session id %q cannot name a file", session)
	}
	slug := claudeSlugUnsafe().ReplaceAllString(dir, "-")
	if len(slug) > claudeSlugMax {
		return "", fmt.Errorf("%s is too long a path: Claude Code shortens its project name with a hash of its own", dir)
	}
	config := claudeConfigDir(env)
	if config == "" {
		return "", errors.New("HOME is not set")
	}
	return filepath.Join(config, "projects", slug, name), nil
}

// PlaceTranscript writes a carried transcript where Claude Code looks for
// it in dir, and returns that path. A file already there with the same
// bytes is fine; one with other bytes is a conversation of this machine's
// under the same id, never overwritten (an error says so).
func PlaceTranscript(env Env, dir, session string, data []byte) (string, error) {
	path, err := TranscriptPath(env, dir, session)
	if err != nil {
		return "", err
	}
	switch old, err := os.ReadFile(path); {
	case err == nil && bytes.Equal(old, data):
		return path, nil
	case err == nil:
		return "", fmt.Errorf("%s holds another conversation under that session id; it was left as it is", path)
	case !errors.Is(err, fs.ErrNotExist):
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(path), store.PrivateDir); err != nil {
		return "", err
	}
	return path, durable.Replace(path, data, durable.How{Perm: store.PrivateFile, Sync: true})
}

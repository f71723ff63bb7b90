package agents

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
)

// An undo record keeps, for a settings file install changed, the bytes it
// had before (or that there was none) and a digest of the bytes install
// left. Uninstall of a file still holding exactly those bytes writes the
// old bytes back, whatever they were: `{}`, a `"hooks": {}` of the user's,
// odd formatting. Parsing alone cannot tell a file install created from a
// user's `{}`. A file edited since falls back to removing our entries,
// and the record still says which keys were the user's.
//
// Records live in the user's state directory, one file per settings file
// and part of git-checkpoint's in it (its hooks, its MCP server: one file
// can hold both, installed and removed apart), named by a digest of its
// path and the part, so that they serve every scope, a repository's and
// the user's alike.
type undoRecord struct {
	Path   string `json:"path"`
	Absent bool   `json:"absent"`           // install created the file
	Before []byte `json:"before,omitempty"` // the bytes before install
	After  string `json:"after"`            // sha256 of the bytes install wrote
	// Dirs are the directories install created for the file, innermost
	// first: uninstall removes those left empty.
	Dirs []string `json:"dirs,omitempty"`
}

// undoDir is where records are kept: $XDG_STATE_HOME/git-checkpoint/installs,
// by default ~/.local/state/git-checkpoint/installs; "" when neither is known.
func undoDir(env Env) string {
	if d := env.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "git-checkpoint", "installs")
	}
	if env.Home == "" {
		return ""
	}
	return filepath.Join(env.Home, ".local", "state", "git-checkpoint", "installs")
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Parts of git-checkpoint's configuration that one file can hold, each
// with its own undo record.
const (
	partHooks = ""
	partMCP   = "mcp"
)

func undoFile(env Env, path, part string) string {
	dir := undoDir(env)
	if dir == "" {
		return ""
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	name := path
	if part != partHooks {
		name += "\x00" + part
	}
	return filepath.Join(dir, digest([]byte(name))[:16]+".json")
}

// loadUndo returns the record of part of path, or nil.
func loadUndo(env Env, path, part string) *undoRecord {
	f := undoFile(env, path, part)
	if f == "" {
		return nil
	}
	b, err := os.ReadFile(f)
	if err != nil {
		return nil
	}
	var r undoRecord
	if json.Unmarshal(b, &r) != nil {
		return nil
	}
	return &r
}

// rememberInstall records that install turned before (nil: no file) into
// after, creating dirs for it; part says which of our entries in the
// file the record is for. A file that still holds what an earlier install
// wrote keeps that install's record of the user's bytes. Best effort:
// without a record, uninstall removes our entries as it always could.
func rememberInstall(env Env, path, part string, before, after []byte, dirs []string) {
	f := undoFile(env, path, part)
	if f == "" {
		return
	}
	rec := undoRecord{Path: path, Absent: before == nil, Before: before, After: digest(after), Dirs: dirs}
	if old := loadUndo(env, path, part); old != nil && before != nil && old.After == digest(before) {
		rec.Absent, rec.Before, rec.Dirs = old.Absent, old.Before, old.Dirs
	}
	b, err := json.Marshal(rec)
	if err != nil || os.MkdirAll(filepath.Dir(f), 0o700) != nil {
		return
	}
	writeAtomic(f, b, 0o600)
}

// forgetInstall drops the record of part of path.
func forgetInstall(env Env, path, part string) {
	if f := undoFile(env, path, part); f != "" {
		os.Remove(f)
	}
}

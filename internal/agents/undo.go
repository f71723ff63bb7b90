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
// Records live in the user's state directory, one file per settings file,
// named by a digest of its path, so that they serve every scope, a
// repository's and the user's alike.
type undoRecord struct {
	Path   string `json:"path"`
	Absent bool   `json:"absent"`           // install created the file
	Before []byte `json:"before,omitempty"` // the bytes before install
	After  string `json:"after"`            // sha256 of the bytes install wrote
	// Dirs are the directories install created for the file, deepest
	// first: uninstall removes them again when they are empty.
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

func undoFile(env Env, path string) string {
	dir := undoDir(env)
	if dir == "" {
		return ""
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return filepath.Join(dir, digest([]byte(path))[:16]+".json")
}

// loadUndo returns the record of path, or nil.
func loadUndo(env Env, path string) *undoRecord {
	f := undoFile(env, path)
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
// after. A file that still holds what an earlier install wrote keeps that
// install's record of the user's bytes. Best effort: without a record,
// uninstall removes our entries as it always could.
func rememberInstall(env Env, path string, before, after []byte) {
	rec := undoRecord{Path: path, Absent: before == nil, Before: before, After: digest(after)}
	if old := loadUndo(env, path); old != nil && before != nil && old.After == digest(before) {
		rec.Absent, rec.Before = old.Absent, old.Before
	}
	writeUndo(env, path, rec)
}

// writeUndo stores the record of path.
func writeUndo(env Env, path string, rec undoRecord) {
	f := undoFile(env, path)
	b, err := json.Marshal(rec)
	if f == "" || err != nil || os.MkdirAll(filepath.Dir(f), 0o700) != nil {
		return
	}
	writeAtomic(f, b, 0o600)
}

// rememberCreated records that install created path, holding after, and
// the directories dirs for it.
func rememberCreated(env Env, path string, after []byte, dirs []string) {
	writeUndo(env, path, undoRecord{Path: path, Absent: true, After: digest(after), Dirs: dirs})
}

// forgetInstall drops the record of path.
func forgetInstall(env Env, path string) {
	if f := undoFile(env, path); f != "" {
		os.Remove(f)
	}
}

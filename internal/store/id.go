package store

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/durable"
	"github.com/git-checkpoint/git-checkpoint/internal/fault"
)

// A store's id names it on a remote: `git checkpoint push` publishes under
// StoresPrefix + id + "/", and a fetch brings every store back under the
// same names. It is random, not derived from a path or a host, so that two
// clones at the same path on two machines never share one, and it lives in
// the state directory, so a clone (which copies no state) gets its own.
const (
	// StoresPrefix is where published stores live, on the remote and, once
	// fetched, here. No working tree's refs are under it: their prefix is
	// refs/checkpoints/main/ or refs/checkpoints/wt-<name>/.
	StoresPrefix = "refs/checkpoints/stores/"
	// idFile holds the id, one line.
	idFile = "store-id"
	// idBytes of randomness: 64 bits, written as 16 hex digits.
	idBytes = 8
)

// ValidID reports whether id has the shape of a store id, so that a ref
// name read from a remote is never taken for one that is not.
func ValidID(id string) bool {
	if len(id) != 2*idBytes {
		return false
	}
	_, err := hex.DecodeString(id)
	return err == nil && strings.ToLower(id) == id
}

// ID returns this store's id, or "" when it has none yet.
func (s *Store) ID() (string, error) {
	b, err := os.ReadFile(s.Path(idFile))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fault.Wrap(err, fault.FailedIO, "cannot read the store id")
	}
	id := strings.TrimSpace(string(b))
	if !ValidID(id) {
		return "", fault.New(fault.FailedIO, "the store id in %s is damaged: %q", fault.Quote(s.Path(idFile)), id).
			WithHint("remove the file: a new id is made at the next 'git checkpoint status' or push (a remote then holds the old id's checkpoints as another store's)")
	}
	return id, nil
}

// EnsureID returns this store's id, making it first when there is none.
// Two processes making it at once agree: each writes its own candidate
// and links it into place, which fails for all but the first.
func (s *Store) EnsureID() (string, error) {
	if id, err := s.ID(); id != "" || err != nil {
		return id, err
	}
	if err := s.Init(); err != nil {
		return "", err
	}
	b := make([]byte, idBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fault.Wrap(err, fault.FailedInternal, "cannot make a store id")
	}
	tmp := s.Path(fmt.Sprintf("%s.%d.tmp", idFile, os.Getpid()))
	defer os.Remove(tmp)
	if err := durable.WriteFile(tmp, []byte(hex.EncodeToString(b)+"\n")); err != nil {
		return "", fault.Wrap(err, fault.FailedIO, "cannot write the store id")
	}
	if err := os.Link(tmp, s.Path(idFile)); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fault.Wrap(err, fault.FailedIO, "cannot write the store id")
	}
	if err := durable.SyncDir(filepath.Dir(s.Path(idFile))); err != nil {
		return "", fault.Wrap(err, fault.FailedIO, "cannot write the store id")
	}
	return s.ID()
}

// StorePrefix is where the store id's refs are, here or on a remote.
func StorePrefix(id string) string { return StoresPrefix + id + "/" }

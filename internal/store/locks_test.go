package store

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestLocksAtOneInstant: with LocksAt set, a lock's age is taken at that
// instant however long the command runs, so a lock young when a repair
// left it is young when the report after it looks (doctor --fix: in
// TestKillLoop a ref lock 10 s old crossed StaleAfter between the two,
// and --fix reported a problem it had just declined to fix). Without
// LocksAt, the same lock is as old as the wall clock says.
func TestLocksAtOneInstant(t *testing.T) {
	common := t.TempDir()
	s := &Store{Dir: t.TempDir(), RefPrefix: "refs/checkpoints/main/", CommonDir: common}
	lock := s.refLock(3)
	if err := os.MkdirAll(filepath.Dir(lock), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// Stale by the wall clock; young at LocksAt, an instant a second
	// before it turned stale.
	written := time.Now().Add(-StaleAfter - time.Minute)
	if err := os.Chtimes(lock, written, written); err != nil {
		t.Fatal(err)
	}
	s.LocksAt = written.Add(StaleAfter - time.Second)
	if !s.RefLocked(3) || s.refDeletable(s.Ref(3)) {
		t.Fatal("at LocksAt the lock was younger than StaleAfter, yet it did not lock")
	}
	if _, err := os.Lstat(lock); err != nil {
		t.Errorf("the young lock was removed: %v", err)
	}
	s.LocksAt = time.Time{}
	if s.RefLocked(3) {
		t.Error("without LocksAt, a lock older than StaleAfter still locks")
	}
}

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
// LocksAt, the same lock turns stale as time passes.
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
	young := time.Now().Add(-StaleAfter + 300*time.Millisecond)
	if err := os.Chtimes(lock, young, young); err != nil {
		t.Fatal(err)
	}
	s.LocksAt = time.Now()
	if !s.RefLocked(3) {
		t.Fatal("a lock younger than StaleAfter is not locking")
	}
	time.Sleep(400 * time.Millisecond)
	if !s.RefLocked(3) || s.refDeletable(3) {
		t.Error("at one instant, the lock turned stale as the command ran")
	}
	if _, err := os.Lstat(lock); err != nil {
		t.Errorf("the young lock was removed: %v", err)
	}
	s.LocksAt = time.Time{}
	if s.RefLocked(3) {
		t.Error("without LocksAt, a lock older than StaleAfter still locks")
	}
}

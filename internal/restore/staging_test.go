package restore

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestRemoveWithoutRm: where no process can be started for it, Remove
// deletes the staging directory itself before it returns, so a rewind
// never leaves one behind for want of rm.
func TestRemoveWithoutRm(t *testing.T) {
	staging := t.TempDir()
	dir := filepath.Join(staging, stagingPrefix+"1")
	if err := os.MkdirAll(filepath.Join(dir, "files"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "files", "0"), []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", t.TempDir()) // no rm on it
	(&Staged{dir: dir}).Remove()
	if entries, err := os.ReadDir(staging); err != nil || len(entries) != 0 {
		t.Errorf("staging holds %v (%v) after Remove without rm, want nothing", entries, err)
	}
}

// TestStaleStaging: a killed rewind's directory is stale at once; a
// finished rewind's only once its removal has had a minute.
func TestStaleStaging(t *testing.T) {
	staging := t.TempDir()
	for _, name := range []string{stagingPrefix + "killed", finishedPrefix + "fresh", finishedPrefix + "old"} {
		if err := os.Mkdir(filepath.Join(staging, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-finishedGrace - time.Second)
	if err := os.Chtimes(filepath.Join(staging, finishedPrefix+"old"), old, old); err != nil {
		t.Fatal(err)
	}
	stale, err := StaleStaging(staging)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(staging, finishedPrefix+"old"), filepath.Join(staging, stagingPrefix+"killed")}
	if len(stale) != len(want) || stale[0] != want[0] || stale[1] != want[1] {
		t.Errorf("stale = %q, want %q", stale, want)
	}
}

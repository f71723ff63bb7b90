package capture

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/git"
)

// TestDroppedStaysBounded deletes more tracked paths than Dropped keeps:
// the list keeps the newest maxDropped, and no capture seeds the private
// index for it. (Seeding on a long list made every capture seed, since
// the scan after a seed drops the deleted tracked files again: a copy of
// the real index and an ls-files each time, and every untracked file
// hashed again.)
func TestDroppedStaysBounded(t *testing.T) {
	files := map[string]string{}
	for i := 0; i < maxDropped+50; i++ {
		files[fmt.Sprintf("d/f%04d", i)] = "x\n"
	}
	c, j := testRepo(t, files)
	ctx := context.Background()
	if err := os.RemoveAll(filepath.Join(c.Repo.Top, "d")); err != nil {
		t.Fatal(err)
	}
	var trace bytes.Buffer
	c.Git.Trace = &git.LockedWriter{W: &trace}
	for round := 1; round <= 3; round++ {
		if _, err := c.Capture(ctx, j, Options{Reason: "test"}); err != nil {
			t.Fatal(err)
		}
		if n := len(c.loadState().Dropped); n != maxDropped {
			t.Fatalf("capture %d: %d paths dropped, want the newest %d", round, n, maxDropped)
		}
	}
	if n := strings.Count(trace.String(), "trace: seed: the private index copied"); n != 0 {
		t.Errorf("%d captures seeded the private index, want none:\n%s", n, trace.String())
	}
}

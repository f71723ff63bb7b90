package capture

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/git"
)

// TestLooseObjectsWrittenFast checks that what git stores loose for a
// capture (its commit; the tool packs the blob and trees it hashed) is
// compressed at zlib's fastest level whatever the user's configuration
// (here the slowest): the zlib header of a level 1 stream is 78 01.
func TestLooseObjectsWrittenFast(t *testing.T) {
	c, j := testRepo(t, map[string]string{"a.txt": "a\n"})
	ctx := context.Background()
	if _, err := c.Git.Run(ctx, git.Cmd{Args: []string{"config", "core.looseCompression", "9"}}); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(c.Repo.Top, "a.txt"), strings.Repeat("a line of the new content\n", 100))
	rec, err := c.Capture(ctx, j, Options{Reason: "test"})
	if err != nil {
		t.Fatal(err)
	}
	oid := rec.Commit
	body, err := os.ReadFile(filepath.Join(c.Repo.CommonDir, "objects", oid[:2], oid[2:]))
	if err != nil {
		t.Fatalf("the new commit is not a loose object: %v", err)
	}
	if len(body) < 2 || body[0] != 0x78 || body[1] != 0x01 {
		t.Fatalf("the commit's zlib header is % x, want 78 01 (level 1)", body[:min(2, len(body))])
	}
}

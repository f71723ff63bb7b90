package gitformat

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/gittest"
)

// The pack's index is read by git in TestPackAgreesWithGit (verify-pack
// and fsck of a pack stored here).

// TestStoreMakesThePackDirectory: a repository without objects/pack
// gets one, as git index-pack would make it.
func TestStoreMakesThePackDirectory(t *testing.T) {
	repo := gittest.NewRepo(t)
	dir := filepath.Join(repo.Dir, ".git", "objects", "pack")
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	p, err := EncodePack([]Object{{Type: "blob", Body: []byte("x\n")}}, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Store(dir); err != nil {
		t.Fatal(err)
	}
	if listed := repo.Git("count-objects", "-v"); !strings.Contains(listed, "in-pack: 1\n") {
		t.Fatalf("count-objects says:\n%s\nwant the blob in a pack", listed)
	}
}

package git

import (
	"context"
	"testing"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/gitformat"
)

// TestWhoIsIdentity: a checkpoint's commit is written either by
// commit-tree with Identity or in this process with Who (a capture's
// group, a sealed commit). git tidies an identity (it drops trailing
// dots, commas, angle brackets), so the two agree only if git writes Who
// as it is; a commit made one way would then differ from the same commit
// made the other.
func TestWhoIsIdentity(t *testing.T) {
	r, _ := newRepo(t)
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	date := at.Format(time.RFC3339)
	env := append([]string{"GIT_AUTHOR_DATE=" + date, "GIT_COMMITTER_DATE=" + date}, Identity...)
	tree := gitformat.EmptyTree(40)
	id, err := r.CommitTree(context.Background(), CommitRequest{Tree: tree, Message: "checkpoint\n", Env: env})
	if err != nil {
		t.Fatal(err)
	}
	want := gitformat.ID("commit", gitformat.Commit{Tree: tree, Who: Who, At: at, Message: "checkpoint\n"}.Body(), 40)
	if id != want {
		t.Fatalf("commit-tree with Identity wrote %s:\n%s\nWho's body hashes to %s:\n%s", id, run(t, r, "cat-file", "commit", id),
			want, gitformat.Commit{Tree: tree, Who: Who, At: at, Message: "checkpoint\n"}.Body())
	}
}

package gitformat

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/gittest"
)

// TestCommitBodyAgreesWithCommitTree: a commit body made here is the one
// git commit-tree writes for the same tree, parents, person, message and
// time, byte for byte (its id says so), including messages without a
// final newline or with trailers and blank lines; and ParseCommit reads
// back the tree, parents and message of the commit git stored.
func TestCommitBodyAgreesWithCommitTree(t *testing.T) {
	repo := gittest.NewRepoWith(t, map[string]string{"a": "1"})
	tree := repo.Git("rev-parse", "HEAD^{tree}")
	at := time.Date(2026, 12, 2, 13, 4, 5, 0, time.FixedZone("x", 3600))
	date := fmt.Sprintf("@%d +0000", at.Unix())
	env := []string{"GIT_AUTHOR_DATE=" + date, "GIT_COMMITTER_DATE=" + date,
		"GIT_AUTHOR_NAME=A U Thor", "GIT_AUTHOR_EMAIL=a@example.com",
		"GIT_COMMITTER_NAME=A U Thor", "GIT_COMMITTER_EMAIL=a@example.com"}
	var parents []string
	for _, msg := range []string{"first\n", "no newline", "checkpoint k2\n\nCheckpoint-Id: k2\nTool: Write\n", "\n\n  spaced\n\n"} {
		args := []string{"commit-tree", "--no-gpg-sign", tree}
		for _, p := range parents {
			args = append(args, "-p", p)
		}
		want := strings.TrimSpace(gitIn(t, repo, env, msg, args...))
		c := Commit{Tree: tree, Parents: parents, Who: "A U Thor <a@example.com>", At: at, Message: msg}
		if got := ID("commit", c.Body(), len(want)); got != want {
			t.Errorf("message %q: body hashes to %s, commit-tree wrote %s\n%s", msg, got, want, c.Body())
		}
		// What git stored reads back.
		stored := gitIn(t, repo, nil, "", "cat-file", "commit", want)
		back, err := ParseCommit([]byte(stored))
		if err != nil || back.Tree != tree || !slices.Equal(back.Parents, parents) || back.Message != msg {
			t.Errorf("message %q: ParseCommit read %+v, %v", msg, back, err)
		}
		parents = append(parents, want)
	}
}

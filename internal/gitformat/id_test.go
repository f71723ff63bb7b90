package gitformat

import (
	"bytes"
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/gittest"
)

// TestIDAgreesWithGit: ID and IDOf name blobs of several sizes as git
// hash-object does, in a SHA-1 and a SHA-256 repository, and IDOf fails
// on a reader that gives another number of bytes than it was told.
func TestIDAgreesWithGit(t *testing.T) {
	for _, format := range []string{"sha1", "sha256"} {
		repo := gittest.NewRepo(t)
		repo.Git("init", "-q", "--object-format="+format, "--bare", "objects.git")
		for _, size := range []int{0, 1, 1000, 70000} {
			body := strings.Repeat("x\n", size/2)
			want := strings.TrimSpace(gitIn(t, repo, nil, body, "--git-dir=objects.git", "hash-object", "--stdin"))
			if got := ID("blob", []byte(body), len(want)); got != want {
				t.Errorf("%s, %d bytes: ID %s, git %s", format, len(body), got, want)
			}
			got, err := IDOf("blob", int64(len(body)), strings.NewReader(body), len(want))
			if err != nil || got != want {
				t.Errorf("%s, %d bytes: IDOf %s %v, git %s", format, len(body), got, err, want)
			}
			if _, err := IDOf("blob", int64(len(body)+1), bytes.NewReader([]byte(body)), len(want)); err == nil {
				t.Errorf("%s: IDOf of a short reader did not fail", format)
			}
		}
		empty := strings.TrimSpace(gitIn(t, repo, nil, "", "--git-dir=objects.git", "hash-object", "-t", "tree", "--stdin"))
		if got := EmptyTree(len(empty)); got != empty {
			t.Errorf("%s: EmptyTree %s, git %s", format, got, empty)
		}
	}
}

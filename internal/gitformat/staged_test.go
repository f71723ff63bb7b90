package gitformat

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/gittest"
)

// TestStagedListIsGits compares StagedList with `git ls-files -z --stage
// -v` byte for byte, on indexes of every version and object format that
// hold every kind of entry: a capture's digest of the real index must not
// depend on which of the two read it.
func TestStagedListIsGits(t *testing.T) {
	for _, format := range []string{"sha1", "sha256"} {
		for _, version := range []string{"2", "3", "4"} {
			t.Run(format+"/v"+version, func(t *testing.T) {
				r := gittest.NewRepo(t)
				if err := os.RemoveAll(filepath.Join(r.Dir, ".git")); err != nil {
					t.Fatal(err)
				}
				r.Git("init", "-q", "-b", "main", "--object-format="+format)
				r.Write(map[string]string{
					"a.txt": "a", "dir/b.txt": "bb", "dir/sub/c.txt": "ccc",
					"e with space.txt": "e", "tab\there": "t", "new\nline": "n",
					"ünïcode.txt": "u", strings.Repeat("long/", 60) + "f.txt": "f",
					"run.sh": "#!/bin/sh\n", "assumed": "x", "skipped": "s", "both": "b",
				})
				if err := os.Chmod(filepath.Join(r.Dir, "run.sh"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink("a.txt", filepath.Join(r.Dir, "link")); err != nil {
					t.Fatal(err)
				}
				r.Git("add", "-A")
				r.Git("commit", "-q", "-m", "one")
				head := r.Git("rev-parse", "HEAD")
				blob := r.Git("rev-parse", "HEAD:a.txt")
				r.Write(map[string]string{"later.txt": "later"})
				r.Git("add", "-N", "later.txt")
				r.Git("update-index", "--add", "--cacheinfo", "160000,"+head+",sub")
				r.GitInput("100644 "+blob+" 1\tconflict\n100644 "+blob+" 2\tconflict\n100755 "+blob+" 3\tconflict\n",
					"update-index", "--index-info")
				r.Git("update-index", "--assume-unchanged", "assumed", "both")
				r.Git("update-index", "--skip-worktree", "skipped", "both")
				r.Git("update-index", "--index-version", version)

				b, err := os.ReadFile(filepath.Join(r.Dir, ".git", "index"))
				if err != nil {
					t.Fatal(err)
				}
				got, err := StagedList(b, len(head)/2)
				if err != nil {
					t.Fatal(err)
				}
				want := r.Git("ls-files", "-z", "--stage", "-v")
				if !bytes.Equal(got, []byte(want)) {
					t.Fatalf("StagedList:\n%q\ngit ls-files:\n%q", got, want)
				}
				for _, tag := range []string{"h ", "s ", "M ", "S "} {
					if !strings.Contains(want, "\x00"+tag) {
						t.Errorf("no entry tagged %q: the index lacks a kind it should test", tag)
					}
				}
			})
		}
	}
}

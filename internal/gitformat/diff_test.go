package gitformat

import (
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/gittest"
)

// TestDifferAgreesWithGit compares random trees both ways: git diff-tree
// -r --no-renames, and the Differ over the bodies git stores. The names
// are chosen so that git's order is subtle ("a" as a file beside "a.b",
// "a-" and the directory "a/"), paths go from file to directory and back
// between the two trees, and modes, symlinks and submodules change.
// FuzzDiffer explores more trees.
func TestDifferAgreesWithGit(t *testing.T) {
	repo := gittest.NewRepo(t)
	rng := rand.New(rand.NewPCG(1, 2))
	var trees []string
	for range 20 {
		trees = append(trees, randomTree(t, repo, rng))
	}
	trees = append(trees, EmptyTree(40))
	d := &Differ{Bodies: storedBodies(t, repo)}
	for _, from := range trees {
		for _, to := range trees {
			agree(t, repo, d, from, to)
		}
	}
}

// FuzzDiffer compares two random trees from each seed, as
// TestDifferAgreesWithGit does.
func FuzzDiffer(f *testing.F) {
	f.Add(uint64(1), uint64(2))
	f.Add(uint64(7), uint64(7))
	repo := gittest.NewRepo(f)
	f.Fuzz(func(t *testing.T, a, b uint64) {
		rng := rand.New(rand.NewPCG(a, b))
		from, to := randomTree(t, repo, rng), randomTree(t, repo, rng)
		agree(t, repo, &Differ{Bodies: storedBodies(t, repo)}, from, to)
	})
}

// agree fails the test when the Differ and git diff-tree disagree on
// from..to.
func agree(t *testing.T, repo *gittest.Repo, d *Differ, from, to string) {
	t.Helper()
	got, ok := d.Diff(from, to)
	if !ok {
		t.Fatalf("%s..%s: the trees were not compared", from, to)
	}
	want := gitDiff(t, repo, from, to)
	if !reflect.DeepEqual(got, want) && (len(got) > 0 || len(want) > 0) {
		t.Fatalf("%s..%s:\nDiffer %+v\ngit    %+v", from, to, got, want)
	}
}

var (
	diffNames = []string{"a", "a.b", "a-", "a0", "b", "ab", "a b"}
	diffModes = []string{"100644", "100644", "100755", "120000", "160000"}
)

// randomTree writes a tree of up to 12 paths of depth 1 to 3 from
// diffNames, with modes from diffModes, through a temporary index.
func randomTree(t testing.TB, repo *gittest.Repo, rng *rand.Rand) string {
	t.Helper()
	var in strings.Builder
	var taken []string
	for n := 0; n < 12; n++ {
		var parts []string
		for range 1 + rng.IntN(3) {
			parts = append(parts, diffNames[rng.IntN(len(diffNames))])
		}
		p := strings.Join(parts, "/")
		// A path may not be both a file and a directory in one tree.
		clash := false
		for _, q := range taken {
			if q == p || strings.HasPrefix(q, p+"/") || strings.HasPrefix(p, q+"/") {
				clash = true
			}
		}
		if clash {
			continue
		}
		taken = append(taken, p)
		mode := diffModes[rng.IntN(len(diffModes))]
		id := ID("blob", []byte(fmt.Sprint("content ", rng.IntN(3))), 40)
		if mode == "160000" {
			id = strings.Repeat(strconv.Itoa(rng.IntN(9)+1), 40)
		}
		fmt.Fprintf(&in, "%s %s\t%s\n", mode, id, p)
	}
	index := []string{"GIT_INDEX_FILE=" + filepath.Join(t.TempDir(), "index")}
	gitIn(t, repo, index, in.String(), "update-index", "--index-info")
	return strings.TrimSpace(gitIn(t, repo, index, "", "write-tree", "--missing-ok"))
}

// gitIn runs git in repo with env added and stdin, and returns its
// output as it is. Unlike repo.Git it fails t, the test it is given,
// which in a fuzz target is not the one repo was made for.
func gitIn(t testing.TB, repo *gittest.Repo, env []string, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = repo.Dir, append(slices.Clip(repo.Env), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

// storedBodies reads trees from git, as the Differ asks for them, in one
// `git cat-file --batch` a call.
func storedBodies(t testing.TB, repo *gittest.Repo) func([]string) ([][]byte, bool) {
	return func(ids []string) ([][]byte, bool) {
		rest := gitIn(t, repo, nil, strings.Join(ids, "\n")+"\n", "cat-file", "--batch")
		out := make([][]byte, len(ids))
		for i, id := range ids {
			header, after, _ := strings.Cut(rest, "\n")
			f := strings.Fields(header)
			if len(f) != 3 || f[0] != id || f[1] != "tree" {
				return nil, false
			}
			size, _ := strconv.Atoi(f[2])
			out[i], rest = []byte(after[:size]), after[size+1:]
		}
		return out, true
	}
}

// gitDiff is git diff-tree's answer for from..to.
func gitDiff(t testing.TB, repo *gittest.Repo, from, to string) []DiffEntry {
	t.Helper()
	out := gitIn(t, repo, nil, "", "diff-tree", "-r", "--no-renames", "-z", "--raw", "--full-index", from, to)
	var entries []DiffEntry
	recs := strings.Split(out, "\x00")
	for i := 0; i+1 < len(recs); i += 2 {
		f := strings.Fields(strings.TrimPrefix(recs[i], ":"))
		if len(f) != 5 {
			t.Fatalf("diff-tree gave %q", recs[i])
		}
		entries = append(entries, DiffEntry{Status: f[4], OldMode: f[0], Mode: f[1], OldOID: f[2], OID: f[3], Path: recs[i+1]})
	}
	return entries
}

func TestCanonMode(t *testing.T) {
	for in, want := range map[uint32]string{
		0o100644: "100644", 0o100664: "100644", 0o100755: "100755", 0o100744: "100755",
		0o120000: "120000", 0o040000: "040000", 0o160000: "160000", 0o170000: "160000",
	} {
		if got := (entry{mode: canonMode(in)}).modeText(); got != want {
			t.Errorf("canonMode(%o) = %s, want %s", in, got, want)
		}
	}
}

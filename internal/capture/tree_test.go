package capture

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/git"
)

// TestEncodeTreeAgreesWithMktree builds random trees, with names chosen
// where git's order is subtle (a directory sorts as if its name ended in
// "/", so "a" the tree comes after "a.b" and "a-b" but before "a0"; bytes
// past 0x7f; quotes, tabs and newlines, which mktree's input quotes), and
// every kind of entry, and checks that the body encodeTree gives has the
// id git mktree gives the same entries. A pack (git.WritePack) stores the
// body as it is, so this is what keeps a packed tree the tree git would
// write.
func TestEncodeTreeAgreesWithMktree(t *testing.T) {
	c, _ := testRepo(t, map[string]string{"a.txt": "a\n"})
	ctx := context.Background()
	names := []string{"a", "a.b", "a-b", "a0", "a_", "ab", "b", "A", "Z", "é", "\xff", "a b", "tab\tx",
		"new\nline", `q"uote`, `back\slash`, "-dash", ".hidden", "x.c", "x", "x0", "x-y"}
	modes := []string{"100644", "100755", "120000", "40000", "160000"}
	rng := rand.New(rand.NewPCG(3, 9))
	var in strings.Builder
	var want []string
	for i := 0; i < 200; i++ {
		entries := map[string]treeEntry{}
		for n := 1 + rng.IntN(len(names)); n > 0; n-- {
			sum := sha1.Sum([]byte(fmt.Sprint(i, n)))
			entries[names[rng.IntN(len(names))]] = treeEntry{mode: modes[rng.IntN(len(modes))], oid: hex.EncodeToString(sum[:])}
		}
		body, err := encodeTree(entries)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, git.ObjectID("tree", body, 40))
		for _, e := range sortedEntries(entries) {
			in.WriteString(mktreeLine(e.name, e.entry))
		}
		in.WriteString("\n")
	}
	out, err := c.Git.Run(ctx, git.Cmd{Args: []string{"mktree", "--missing", "--batch"}, Stdin: []byte(in.String())})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Fields(string(out))
	if len(got) != len(want) {
		t.Fatalf("mktree wrote %d trees, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("tree %d: encodeTree gives %s, mktree %s", i, want[i], got[i])
		}
	}
}

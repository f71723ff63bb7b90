package gitformat

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/gittest"
)

// TestEncodeTreeAgreesWithMktree builds random trees, with names chosen
// where git's order is subtle (a directory sorts as if its name ended in
// "/", so "a" the tree comes after "a.b" and "a-b" but before "a0"; bytes
// past 0x7f; quotes, tabs and newlines, which mktree's input quotes), and
// every kind of entry, and checks that the body EncodeTree gives has the
// id git mktree gives the same entries, and that ParseTree reads back
// the entries from the body git stores. A pack (EncodePack) stores the
// body as it is, so this is what keeps a packed tree the tree git would
// write.
func TestEncodeTreeAgreesWithMktree(t *testing.T) {
	repo := gittest.NewRepo(t)
	names := []string{"a", "a.b", "a-b", "a0", "a_", "ab", "b", "A", "Z", "é", "\xff", "a b", "tab\tx",
		"new\nline", `q"uote`, `back\slash`, "-dash", ".hidden", "x.c", "x", "x0", "x-y"}
	modes := []string{"100644", "100755", "120000", "40000", "160000"}
	rng := rand.New(rand.NewPCG(3, 9))
	var in strings.Builder
	var want []string
	var trees []map[string]Entry
	for i := 0; i < 200; i++ {
		entries := map[string]Entry{}
		for n := 1 + rng.IntN(len(names)); n > 0; n-- {
			sum := sha1.Sum([]byte(fmt.Sprint(i, n)))
			entries[names[rng.IntN(len(names))]] = Entry{Mode: modes[rng.IntN(len(modes))], OID: hex.EncodeToString(sum[:])}
		}
		body, err := EncodeTree(entries)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, ID("tree", body, 40))
		trees = append(trees, entries)
		for _, e := range sortedEntries(entries) {
			in.WriteString(mktreeLine(e.name, e.entry))
		}
		in.WriteString("\n")
	}
	got := strings.Fields(repo.GitInput(in.String(), "mktree", "--missing", "--batch"))
	if len(got) != len(want) {
		t.Fatalf("mktree wrote %d trees, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("tree %d: EncodeTree gives %s, mktree %s", i, want[i], got[i])
		}
		// --batch ends the body with a newline, which GitInput takes
		// off: what stays is the body whatever its last byte.
		answer := repo.GitInput(got[i]+"\n", "cat-file", "--batch")
		header, body, _ := strings.Cut(answer, "\n")
		if header != fmt.Sprintf("%s tree %d", got[i], len(body)) {
			t.Fatalf("tree %d: cat-file answered %q for a body of %d bytes", i, header, len(body))
		}
		back, err := ParseTree([]byte(body), 20)
		if err != nil {
			t.Fatalf("tree %d: %v", i, err)
		}
		if !maps.Equal(back, trees[i]) {
			t.Fatalf("tree %d: ParseTree read\n%v\nof what git stored for\n%v", i, back, trees[i])
		}
	}
}

// mktreeLine is one entry as `git mktree` reads it: "<mode> <type>
// <oid>\t<name>", the name C-quoted when it holds a byte that would break
// the line.
func mktreeLine(name string, e Entry) string {
	kind := "blob"
	switch {
	case e.IsTree():
		kind = "tree"
	case e.Mode == "160000":
		kind = "commit"
	}
	mode := e.Mode
	if mode == "40000" {
		mode = "040000"
	}
	return mode + " " + kind + " " + e.OID + "\t" + cQuote(name) + "\n"
}

// cQuote quotes name the way git's unquote_c_style reads it, when it must:
// a name starting with a double quote or holding a control character,
// backslash or quote.
func cQuote(name string) string {
	if !strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f || r == '"' || r == '\\' }) {
		return name
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, "\\%03o", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

type namedEntry struct {
	name  string
	entry Entry
}

func sortedEntries(entries map[string]Entry) []namedEntry {
	out := make([]namedEntry, 0, len(entries))
	for n, e := range entries {
		out = append(out, namedEntry{n, e})
	}
	slices.SortFunc(out, func(a, b namedEntry) int { return strings.Compare(a.name, b.name) })
	return out
}

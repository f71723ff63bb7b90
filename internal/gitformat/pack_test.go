package gitformat

import (
	"bytes"
	"compress/zlib"
	"encoding/hex"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/gittest"
)

// TestPackAgreesWithGit packs blobs of sizes on both sides of each
// boundary of a pack entry's size header and of storedMax (stored or
// compressed), and a tree naming them, in a SHA-1 and a SHA-256
// repository, stored here (Store) and fed to git index-pack: git must
// read back every object's body under the id git gives it, from a pack
// and not loose, and find the pack and its index sound.
func TestPackAgreesWithGit(t *testing.T) {
	for _, format := range []string{"sha1", "sha256"} {
		for _, here := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/here=%v", format, here), func(t *testing.T) {
				repo := gittest.NewRepo(t)
				repo.Git("init", "-q", "--object-format="+format, "--bare", "objects.git")
				git := func(stdin string, args ...string) string {
					return repo.GitInput(stdin, append([]string{"--git-dir=objects.git"}, args...)...)
				}
				var objs []Object
				var ids []string
				var tree bytes.Buffer
				for i, size := range []int{0, 1, 15, 16, storedMax - 1, storedMax, 2047, 2048, 1<<18 - 1, 1 << 18, 3 << 20} {
					body := strings.Repeat(string(rune('a'+i)), size)
					ids = append(ids, git(body, "hash-object", "-t", "blob", "--stdin"))
					id := ids[i]
					if i%2 == 0 {
						id = "" // named by the pack's writer
					}
					objs = append(objs, Object{ID: id, Type: "blob", Body: []byte(body)})
				}
				for i, id := range ids {
					raw := decodeHex(t, id)
					tree.WriteString("100644 f" + string(rune('a'+i)) + "\x00")
					tree.Write(raw)
				}
				objs = append(objs, Object{Type: "tree", Body: tree.Bytes()})
				p, err := EncodePack(objs, format == "sha256")
				if err != nil {
					t.Fatal(err)
				}
				if here {
					err = p.Store(filepath.Join(repo.Dir, "objects.git", "objects", "pack"))
				} else {
					git(string(p.Bytes()), "index-pack", "--stdin")
				}
				if err != nil {
					t.Fatal(err)
				}
				for i, id := range ids {
					if got := git("", "cat-file", "blob", id); got != string(objs[i].Body) {
						t.Fatalf("blob %d: read back %d bytes, stored %d", i, len(got), len(objs[i].Body))
					}
				}
				listed := git("", "count-objects", "-v")
				if !strings.Contains(listed, "count: 0\n") || !strings.Contains(listed, "in-pack: 12\n") ||
					!strings.Contains(listed, "garbage: 0\n") {
					t.Fatalf("count-objects says:\n%s\nwant 12 objects in a pack, none loose, no garbage", listed)
				}
				idx, _ := filepath.Glob(filepath.Join(repo.Dir, "objects.git", "objects", "pack", "pack-*.idx"))
				if len(idx) != 1 {
					t.Fatalf("pack indexes: %q, want one", idx)
				}
				git("", "verify-pack", idx[0])
				git("", "fsck", "--strict", "--no-dangling")
			})
		}
	}
}

// TestEncodePackRefusesAWrongName: an object whose ID is not the hash of
// its body is not packed under either.
func TestEncodePackRefusesAWrongName(t *testing.T) {
	wrong := strings.Repeat("ab", 20)
	_, err := EncodePack([]Object{{ID: wrong, Type: "blob", Body: []byte("x\n")}}, false)
	if err == nil || !strings.Contains(err.Error(), wrong) {
		t.Fatalf("EncodePack of a blob under another name: %v", err)
	}
}

func decodeHex(t *testing.T, id string) []byte {
	t.Helper()
	raw, err := hex.DecodeString(id)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestStoredStream reads back, with Go's zlib reader (which checks the
// Adler-32), streams stored by hand of every length around a stored
// block's limit, and of many blocks.
func TestStoredStream(t *testing.T) {
	for _, size := range []int{0, 1, 1023, 65534, 65535, 65536, 3*65535 + 7} {
		body := make([]byte, size)
		for i := range body {
			body[i] = byte(i*7 + i/251)
		}
		zr, err := zlib.NewReader(bytes.NewReader(storedStream(body)))
		if err != nil {
			t.Fatalf("%d bytes: %v", size, err)
		}
		got, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("%d bytes: %v", size, err)
		}
		if !bytes.Equal(got, body) {
			t.Fatalf("%d bytes: read back %d different bytes", size, len(got))
		}
	}
}

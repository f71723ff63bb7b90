package gitformat

import (
	"bytes"
	"compress/zlib"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/gittest"
)

// TestParseLooseAgreesWithGit: objects git wrote loose, in a SHA-1 and a
// SHA-256 repository (blobs empty, text, binary and of a megabyte, a tree,
// a commit), read back here with the type and body git gives them.
func TestParseLooseAgreesWithGit(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	big := make([]byte, 1<<20)
	for i := range big {
		big[i] = byte(rng.IntN(256))
	}
	var binary []byte
	for i := range 256 {
		binary = append(binary, byte(i))
	}
	for _, format := range []string{"sha1", "sha256"} {
		t.Run(format, func(t *testing.T) {
			repo := gittest.NewRepo(t)
			repo.Git("init", "-q", "--object-format="+format, "--bare", "objects.git")
			git := func(stdin string, args ...string) string {
				return repo.GitInput(stdin, append([]string{"--git-dir=objects.git"}, args...)...)
			}
			var ids []string
			for _, body := range []string{"", "text\r\nlines\n", string(binary), string(big)} {
				ids = append(ids, git(body, "hash-object", "-w", "--stdin"))
			}
			tree := git("100644 blob "+ids[1]+"\tf\n", "mktree")
			ids = append(ids, tree, git("", "commit-tree", "-m", "m", tree))
			for _, id := range ids {
				data, err := os.ReadFile(filepath.Join(repo.Dir, "objects.git", "objects", id[:2], id[2:]))
				if err != nil {
					t.Fatal(err)
				}
				kind, body, err := ParseLoose(data)
				if err != nil {
					t.Fatalf("%s: %v", id, err)
				}
				if hk, size, err := LooseHeader(data); err != nil || hk != kind || size != int64(len(body)) {
					t.Errorf("%s: the header alone says %s %d (%v), the object %s %d", id, hk, size, err, kind, len(body))
				}
				if want := git("", "cat-file", "-t", id); kind != want {
					t.Errorf("%s: type %s, git says %s", id, kind, want)
				}
				if got := ID(kind, body, len(id)); got != id {
					t.Errorf("%s: the body read hashes to %s", id, got)
				}
			}
		})
	}
}

// TestParseLooseRefuses: a damaged object is an error, never a body.
func TestParseLooseRefuses(t *testing.T) {
	deflate := func(s string) []byte {
		var b bytes.Buffer
		zw := zlib.NewWriter(&b)
		zw.Write([]byte(s))
		zw.Close()
		return b.Bytes()
	}
	good := deflate("blob 3\x00abc")
	if _, body, err := ParseLoose(good); err != nil || string(body) != "abc" {
		t.Fatalf("a sound object: %q, %v", body, err)
	}
	for name, data := range map[string][]byte{
		"not zlib":         []byte("blob 3\x00abc"),
		"cut short":        good[:len(good)-3],
		"no header":        deflate("abc"),
		"unknown type":     deflate("blub 3\x00abc"),
		"size too big":     deflate("blob 4\x00abc"),
		"size too small":   deflate("blob 2\x00abc"),
		"size not decimal": deflate("blob +3\x00abc"),
		"size with zeros":  deflate("blob 03\x00abc"),
		"no size":          deflate("blob\x00abc"),
	} {
		if _, _, err := ParseLoose(data); err == nil {
			t.Errorf("%s: read as sound", name)
		}
		if _, _, err := LooseHeader(data); err == nil && !strings.HasPrefix(name, "size too") && name != "cut short" {
			t.Errorf("%s: its header read as sound", name)
		}
	}
}

// FuzzParseLoose: any bytes give an error or a body of the header's size.
func FuzzParseLoose(f *testing.F) {
	f.Add([]byte("x"))
	var b bytes.Buffer
	zw := zlib.NewWriter(&b)
	zw.Write([]byte("blob 3\x00abc"))
	zw.Close()
	f.Add(b.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		hk, size, herr := LooseHeader(data)
		kind, body, err := ParseLoose(data)
		if err != nil {
			return
		}
		if herr != nil || hk != kind || size != int64(len(body)) {
			t.Fatalf("the object is %s %d, its header alone %s %d (%v)", kind, len(body), hk, size, herr)
		}
	})
}

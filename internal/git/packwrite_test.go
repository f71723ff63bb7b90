package git

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/hex"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/gittest"
)

// TestWritePack stores blobs of sizes on both sides of each boundary of a
// pack entry's size header and of storedMax (stored or compressed), and
// a tree naming them, in one pack, in a
// SHA-1 and a SHA-256 repository; git must read back every object's
// body under the id git gives it, from a pack and not loose.
func TestWritePack(t *testing.T) {
	for _, format := range []string{"sha1", "sha256"} {
		t.Run(format, func(t *testing.T) {
			repo := gittest.NewRepo(t)
			repo.Git("init", "-q", "--object-format="+format, "--bare", "objects.git")
			r := &Runner{Dir: filepath.Join(repo.Dir, "objects.git"), Env: repo.Env}
			ctx := context.Background()
			var objs []Object
			var ids []string
			var tree bytes.Buffer
			for i, size := range []int{0, 1, 15, 16, storedMax - 1, storedMax, 2047, 2048, 1<<18 - 1, 1 << 18, 3 << 20} {
				body := bytes.Repeat([]byte{byte('a' + i)}, size)
				objs = append(objs, Object{Type: "blob", Body: body})
				out, err := r.Run(ctx, Cmd{Args: []string{"hash-object", "-t", "blob", "--stdin"}, Stdin: body})
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, strings.TrimSpace(string(out)))
			}
			for i, id := range ids {
				raw := decodeHex(t, id)
				tree.WriteString("100644 f" + string(rune('a'+i)) + "\x00")
				tree.Write(raw)
			}
			objs = append(objs, Object{Type: "tree", Body: tree.Bytes()})
			if err := r.WritePack(ctx, objs, format == "sha256"); err != nil {
				t.Fatal(err)
			}
			for i, id := range ids {
				out, err := r.Run(ctx, Cmd{Args: []string{"cat-file", "blob", id}})
				if err != nil {
					t.Fatalf("blob %d: %v", i, err)
				}
				if !bytes.Equal(out, objs[i].Body) {
					t.Fatalf("blob %d: read back %d bytes, stored %d", i, len(out), len(objs[i].Body))
				}
			}
			listed := run(t, r, "count-objects", "-v")
			if !strings.Contains(listed, "count: 0\n") || !strings.Contains(listed, "in-pack: 12\n") {
				t.Fatalf("count-objects says:\n%s\nwant 12 objects in a pack, none loose", listed)
			}
		})
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

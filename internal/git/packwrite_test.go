package git

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/gittest"
)

// TestWritePack stores blobs of sizes on both sides of each boundary of a
// pack entry's size header and of storedMax (stored or compressed), and
// a tree naming them, in one pack, in a SHA-1 and a SHA-256 repository,
// through git index-pack and written here: git must read back every
// object's body under the id git gives it, from a pack and not loose,
// and find the pack and its index sound.
func TestWritePack(t *testing.T) {
	for _, format := range []string{"sha1", "sha256"} {
		for _, here := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/here=%v", format, here), func(t *testing.T) {
				repo := gittest.NewRepo(t)
				repo.Git("init", "-q", "--object-format="+format, "--bare", "objects.git")
				r := &Runner{Dir: filepath.Join(repo.Dir, "objects.git"), Env: repo.Env}
				if here {
					r.Objects = filepath.Join(r.Dir, "objects")
				}
				ctx := context.Background()
				var objs []Object
				var ids []string
				var tree bytes.Buffer
				for i, size := range []int{0, 1, 15, 16, storedMax - 1, storedMax, 2047, 2048, 1<<18 - 1, 1 << 18, 3 << 20} {
					body := bytes.Repeat([]byte{byte('a' + i)}, size)
					out, err := r.Run(ctx, Cmd{Args: []string{"hash-object", "-t", "blob", "--stdin"}, Stdin: body})
					if err != nil {
						t.Fatal(err)
					}
					ids = append(ids, strings.TrimSpace(string(out)))
					id := ids[i]
					if i%2 == 0 {
						id = "" // named by the pack's writer
					}
					objs = append(objs, Object{ID: id, Type: "blob", Body: body})
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
				if !strings.Contains(listed, "count: 0\n") || !strings.Contains(listed, "in-pack: 12\n") ||
					!strings.Contains(listed, "garbage: 0\n") {
					t.Fatalf("count-objects says:\n%s\nwant 12 objects in a pack, none loose, no garbage", listed)
				}
				idx, _ := filepath.Glob(filepath.Join(r.Dir, "objects", "pack", "pack-*.idx"))
				if len(idx) != 1 {
					t.Fatalf("pack indexes: %q, want one", idx)
				}
				run(t, r, "verify-pack", idx[0])
				run(t, r, "fsck", "--strict", "--no-dangling")
			})
		}
	}
}

// TestWritePackRefusesAWrongName: an object whose ID is not the hash of
// its body is not stored under either.
func TestWritePackRefusesAWrongName(t *testing.T) {
	repo := gittest.NewRepo(t)
	r := &Runner{Dir: repo.Dir, Env: repo.Env, Objects: filepath.Join(repo.Dir, ".git", "objects")}
	wrong := strings.Repeat("ab", 20)
	err := r.WritePack(context.Background(), []Object{{ID: wrong, Type: "blob", Body: []byte("x\n")}}, false)
	if err == nil || !strings.Contains(err.Error(), wrong) {
		t.Fatalf("WritePack of a blob under another name: %v", err)
	}
	if packs, _ := filepath.Glob(filepath.Join(r.Objects, "pack", "*")); len(packs) > 0 {
		t.Fatalf("left in the pack directory: %q", packs)
	}
}

// TestWritePackMakesThePackDirectory: a repository without
// objects/pack gets one, as git index-pack would make it.
func TestWritePackMakesThePackDirectory(t *testing.T) {
	repo := gittest.NewRepo(t)
	r := &Runner{Dir: repo.Dir, Env: repo.Env, Objects: filepath.Join(repo.Dir, ".git", "objects")}
	if err := os.RemoveAll(filepath.Join(r.Objects, "pack")); err != nil {
		t.Fatal(err)
	}
	if err := r.WritePack(context.Background(), []Object{{Type: "blob", Body: []byte("x\n")}}, false); err != nil {
		t.Fatal(err)
	}
	if listed := run(t, r, "count-objects", "-v"); !strings.Contains(listed, "in-pack: 1\n") {
		t.Fatalf("count-objects says:\n%s\nwant the blob in a pack", listed)
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

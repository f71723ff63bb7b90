package gitformat

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/gittest"
)

// debugOf is what `git ls-files --debug` prints of an entry, rebuilt from
// what ParseIndex read: the two must agree on every path and field.
func debugOf(e *IndexEntry) string {
	return fmt.Sprintf("%s\n  ctime: %d:%d\n  mtime: %d:%d\n  dev: %d\tino: %d\n  uid: %d\tgid: %d\n  size: %d\tflags: ",
		e.Path, e.CtimeSec, e.CtimeNsec, e.MtimeSec, e.MtimeNsec, e.Dev, e.Ino, e.UID, e.GID, e.Size)
}

// readAll parses the repository's index and returns the entries as
// ls-files --debug prints them (without the flags), and the entries.
func readAll(t *testing.T, r *gittest.Repo, hashSize int) (debug []string, entries []IndexEntry) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.Dir, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	err = ParseIndex(b, hashSize, func(e *IndexEntry) bool {
		debug = append(debug, debugOf(e))
		c := *e
		c.Path = append([]byte(nil), e.Path...)
		entries = append(entries, c)
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	return debug, entries
}

// gitDebug is `git ls-files --debug`, one string per entry, its flags
// field cut (git prints its in-memory flags there, not the file's).
func gitDebug(r *gittest.Repo) []string {
	blocks := strings.SplitAfter(r.Git("ls-files", "--debug", "--stage"), "flags: ")
	out := []string{blocks[0]}
	for _, block := range blocks[1:] {
		// Each block after the first begins with the flags before it.
		if _, rest, ok := strings.Cut(block, "\n"); ok {
			out = append(out, rest)
		}
	}
	return out
}

func TestParseIndexAgreesWithGit(t *testing.T) {
	for _, version := range []string{"2", "3", "4"} {
		t.Run("v"+version, func(t *testing.T) {
			r := gittest.NewRepoWith(t, map[string]string{
				"a.txt": "a", "dir/b.txt": "bb", "dir/sub/c.txt": "ccc",
				"dir/sub/deeper/d.txt": "d", "e with space.txt": "e",
				strings.Repeat("long/", 20) + "f.txt": "f",
			})
			r.Write(map[string]string{"dir/new.txt": "new"})
			if version == "3" {
				r.Git("add", "-N", "dir/new.txt") // intent-to-add needs extended flags
			}
			r.Git("update-index", "--index-version", version)
			b, err := os.ReadFile(filepath.Join(r.Dir, ".git", "index"))
			if err != nil || len(b) < 8 || fmt.Sprint(b[7]) != version {
				t.Fatalf("index version %v, want %s (%v)", b[4:8], version, err)
			}
			debug, entries := readAll(t, r, 20)
			want := gitDebug(r)
			for i, w := range want {
				// --stage puts mode, id and stage before the path.
				_, w, _ = strings.Cut(w, "\t")
				if i >= len(debug) || debug[i] != w {
					t.Fatalf("entry %d:\n got %q\nwant %q", i, debug[min(i, len(debug)-1)], w)
				}
			}
			if len(debug) != len(want) {
				t.Fatalf("%d entries, git lists %d", len(debug), len(want))
			}
			for _, e := range entries {
				if ita := string(e.Path) == "dir/new.txt"; e.IntentToAdd != ita {
					t.Errorf("%s: intent-to-add %v", e.Path, e.IntentToAdd)
				}
				if e.Mode != 0o100644 || e.Stage != 0 {
					t.Errorf("%s: mode %o stage %d", e.Path, e.Mode, e.Stage)
				}
			}
		})
	}
}

func TestParseIndexFlags(t *testing.T) {
	r := gittest.NewRepoWith(t, map[string]string{"a": "a", "b": "b", "c": "c"})
	r.Git("update-index", "--skip-worktree", "b")
	r.Git("update-index", "--assume-unchanged", "c")
	_, entries := readAll(t, r, 20)
	got := map[string]string{}
	for _, e := range entries {
		got[string(e.Path)] = fmt.Sprintf("assume %v skip %v", e.AssumeValid, e.SkipWorktree)
	}
	want := map[string]string{"a": "assume false skip false", "b": "assume false skip true", "c": "assume true skip false"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("flags %v, want %v", got, want)
	}
}

func TestParseIndexStopsAndRefuses(t *testing.T) {
	r := gittest.NewRepoWith(t, map[string]string{"a": "a", "b": "b"})
	b, err := os.ReadFile(filepath.Join(r.Dir, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	if err := ParseIndex(b, 20, func(*IndexEntry) bool { n++; return false }); err != nil || n != 1 {
		t.Fatalf("stopped after %d entries, err %v", n, err)
	}
	for name, bad := range map[string][]byte{
		"empty":     nil,
		"signature": append([]byte("DIRX"), b[4:]...),
		"version":   append(append([]byte("DIRC"), 0, 0, 0, 5), b[8:]...),
		"cut short": b[:40],
	} {
		if err := ParseIndex(bad, 20, func(*IndexEntry) bool { return true }); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
	r.Git("update-index", "--split-index")
	if b, err = os.ReadFile(filepath.Join(r.Dir, ".git", "index")); err != nil {
		t.Fatal(err)
	}
	if err := ParseIndex(b, 20, func(*IndexEntry) bool { return true }); err == nil {
		t.Error("a split index parsed as a whole one")
	}
}

func TestVarint(t *testing.T) {
	// git's encoding: 127 is one byte, 128 two (0x80 0x00), 16511 two.
	for _, c := range []struct {
		b    []byte
		v, n int
	}{{[]byte{0}, 0, 1}, {[]byte{0x7f}, 127, 1}, {[]byte{0x80, 0}, 128, 2}, {[]byte{0xff, 0x7f}, 16511, 2}, {[]byte{0x80}, 0, 0},
		// Ten bytes overflowed an int into a negative length
		// (FuzzParseIndex): past 48 bits is no path's prefix.
		{append(bytes.Repeat([]byte{0xe2}, 9), '0'), 0, 0}} {
		if v, n := varint(c.b); v != c.v || n != c.n {
			t.Errorf("varint(%x) = %d, %d; want %d, %d", c.b, v, n, c.v, c.n)
		}
	}
}

// FuzzParseIndex feeds ParseIndex damaged indexes, from real ones of each version:
// it must return an error or entries, never panic or read past the end,
// since a capture maps the private index and parses whatever is there.
func FuzzParseIndex(f *testing.F) {
	r := gittest.NewRepoWith(f, map[string]string{"a": "a", "d/b": "b", "d/e/c": "c"})
	r.Write(map[string]string{"n": "n"})
	r.Git("add", "-N", "n")
	for _, version := range []string{"2", "3", "4"} {
		r.Git("update-index", "--index-version", version)
		b, err := os.ReadFile(filepath.Join(r.Dir, ".git", "index"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, hashSize := range []int{20, 32} {
			ParseIndex(b, hashSize, func(e *IndexEntry) bool {
				_ = StatAt(b, e.Offset)
				return true
			})
			StagedList(b, hashSize)
		}
		IndexLen(b)
	})
}

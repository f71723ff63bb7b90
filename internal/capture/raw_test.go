package capture

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/config"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
)

// TestRawModeIsTheTreeMode: a file kept raw has in the overlay the mode
// git gives it in the tree. Only its owner's execute bit makes a file
// 100755 (git's create_ce_mode), so a file only its group may execute is
// 100644 in both.
func TestRawModeIsTheTreeMode(t *testing.T) {
	c, j := testRepo(t, map[string]string{".gitattributes": "* text=auto\n", "f.txt": "a\n"})
	ctx := context.Background()
	p := filepath.Join(c.Repo.Top, "f.txt")
	write(t, p, "crlf\r\nline\r\n")
	if err := os.Chmod(p, 0o654); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Capture(ctx, j, Options{Reason: "test"}); err != nil {
		t.Fatal(err)
	}
	raw, ok := c.loadState().Raw["f.txt"]
	if !ok {
		t.Fatal("the CRLF file under text=auto is not kept raw")
	}
	if raw.Mode != "100644" {
		t.Fatalf("the overlay gives a file only its group may execute mode %s, the tree 100644", raw.Mode)
	}
}

// TestMayConvertSeesSystemAttributes: the system's attributes file can ask
// for conversions too (a clean filter, text=auto), so where one is, the
// files' bytes are not taken for their blobs; GIT_ATTR_NOSYSTEM, which
// makes git leave it unread, makes the capture leave it too.
func TestMayConvertSeesSystemAttributes(t *testing.T) {
	c, _ := testRepo(t, map[string]string{"a.txt": "a\n"})
	sys := filepath.Join(t.TempDir(), "gitattributes")
	c.sysAttrs = []string{sys}
	c.Git.Env = append(c.Git.Env, "GIT_ATTR_NOSYSTEM=0")
	st := c.loadState()
	if c.mayConvert(st) {
		t.Fatal("conversions may apply with no attributes file anywhere")
	}
	write(t, sys, "* text=auto\n")
	if !c.mayConvert(st) {
		t.Fatal("the system's attributes file was not seen")
	}
	c.Git.Env = append(c.Git.Env, "GIT_ATTR_NOSYSTEM=true")
	if c.mayConvert(st) {
		t.Fatal("the system's attributes file was seen under GIT_ATTR_NOSYSTEM")
	}
}

// TestPlainOnlyWhereNothingConverts: a rewind writes files from their
// blobs only where a checkout is exactly that. A .gitattributes the last
// scan found, an attributes file outside the tree, core.autocrlf and
// core.symlinks=false each make the tree not plain.
func TestPlainOnlyWhereNothingConverts(t *testing.T) {
	c, j := testRepo(t, map[string]string{"a.txt": "a\n"})
	c.sysAttrs = []string{}
	if !c.Plain() {
		t.Fatal("a tree with no attributes file and git's defaults is not plain")
	}
	write(t, filepath.Join(c.Repo.Top, "sub", ".gitattributes"), "*.txt text\n")
	if _, err := c.Capture(context.Background(), j, Options{Reason: "test"}); err != nil {
		t.Fatal(err)
	}
	if c.Plain() {
		t.Error("plain with a .gitattributes in the tree")
	}

	c, _ = testRepo(t, map[string]string{"a.txt": "a\n"})
	c.sysAttrs = []string{}
	write(t, filepath.Join(c.Repo.CommonDir, "info", "attributes"), "* -text\n")
	if c.Plain() {
		t.Error("plain with info/attributes")
	}

	c, _ = testRepo(t, map[string]string{"a.txt": "a\n"})
	c.sysAttrs = []string{}
	for _, cfg := range []func(*config.Config){
		func(cf *config.Config) { cf.EOL = true },
	} {
		saved := c.Cfg
		cfg(&c.Cfg)
		if c.Plain() {
			t.Errorf("plain with the configuration %+v", c.Cfg)
		}
		c.Cfg = saved
	}
}

// TestNewAttributesFileConverts: an attributes file that no capture has
// seen yet still governs what the capture stores. A scan that finds a new
// .gitattributes beside forty changed files, a per-tool capture of a
// file under one a shell command made, and one whose file was hashed
// before that command, all store what git would (here line endings
// normalized by `text`), not the files' bytes.
func TestNewAttributesFileConverts(t *testing.T) {
	ctx := context.Background()
	files := map[string]string{}
	for i := range 40 {
		files[fmt.Sprintf("d%d/f.txt", i)] = "one\r\n"
	}
	c, j := testRepo(t, files)
	c.sysAttrs = []string{}
	want := func(rel string) string {
		out, err := c.Git.Run(ctx, git.Cmd{Args: []string{"hash-object", "--path", rel, filepath.Join(c.Repo.Top, rel)}})
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	have := func(tree, rel string) string {
		out, err := c.Git.Run(ctx, git.Cmd{Args: []string{"rev-parse", tree + ":" + rel}})
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	write(t, filepath.Join(c.Repo.Top, ".gitattributes"), "*.txt text\n")
	for p := range files {
		write(t, filepath.Join(c.Repo.Top, p), "two\r\n")
	}
	rec, err := c.Capture(ctx, j, Options{Reason: "scan"})
	if err != nil {
		t.Fatal(err)
	}
	if got, w := have(rec.Tree, "d7/f.txt"), want("d7/f.txt"); got != w {
		t.Errorf("the scan stored %s for d7/f.txt, git would store %s", got, w)
	}

	// A per-tool capture of a file under an attributes file a shell
	// command made, before the hook hashed the file or (in a plain tree)
	// while it waited for the lock after hashing it.
	only := []string{"a/b.txt"}
	for _, hashedFirst := range []bool{false, true} {
		c, j = testRepo(t, map[string]string{"a/b.txt": "one\r\n"})
		c.sysAttrs = []string{}
		attributes := func() { write(t, filepath.Join(c.Repo.Top, "a", ".gitattributes"), "*.txt text\n") }
		if !hashedFirst {
			attributes()
		}
		write(t, filepath.Join(c.Repo.Top, "a", "b.txt"), "two\r\n")
		pre := c.Prehash(ctx, only)
		if hashedFirst {
			attributes()
		}
		rec, err = c.Capture(ctx, j, Options{Reason: "tool", Only: only, Prehash: pre})
		if err != nil {
			t.Fatal(err)
		}
		if got, w := have(rec.Tree, "a/b.txt"), want("a/b.txt"); got != w {
			t.Errorf("the per-tool capture (hashed before the attributes file: %v) stored %s for a/b.txt, git would store %s", hashedFirst, got, w)
		}
	}
}

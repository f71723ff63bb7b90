package capture

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/config"
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
		func(cf *config.Config) { cf.StatModes = false },
	} {
		saved := c.Cfg
		cfg(&c.Cfg)
		if c.Plain() {
			t.Errorf("plain with the configuration %+v", c.Cfg)
		}
		c.Cfg = saved
	}
}

package capture

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/gittest"
)

// attrSamples are files each conversion changes: CRLF line ends (text,
// eol, crlf, text=auto), an expanded $Id$ (ident collapses it), a letter a clean filter
// rewrites, text that is not UTF-8 (working-tree-encoding).
var attrSamples = map[string]string{
	"crlf.txt": "one\r\ntwo\r\n",
	"id.c":     "/* $Id: 0123abcd $ */\r\n",
	"a.md":     "a\r\n",
	"l1.txt":   "caf\xe9\r\n",
}

// TestAttributesConvertAgreesWithGit: where attributesConvert says an
// attributes file converts nothing, git stores each sample as its bytes;
// where it says one may, git converts one of the samples at least, so the
// check is not a plain "yes". A clean filter is configured, as filter=
// needs one to convert.
func TestAttributesConvertAgreesWithGit(t *testing.T) {
	plain := []string{
		"",
		"# comment text\n\n",
		"* -text\n",
		"*.png binary\n*.c -diff -merge\n",
		"* linguist-generated=true export-ignore\n*.md diff=markdown merge=union whitespace=trailing-space\n",
		"* -text -ident -filter -eol -crlf -working-tree-encoding\n",
		"* !text !eol !ident !filter\n",
		"textual.txt delta\n*.c conflict-marker-size=10\n",
		"\"quoted text\" -text\n",
		"  * -text  \r\n",
	}
	converting := []string{
		"* text=auto\n",
		"*.txt text\n",
		"*.md eol=lf\n",
		"*.txt crlf\n",
		"*.c ident\n",
		"*.md filter=up\n",
		"l1.txt working-tree-encoding=ISO-8859-1\n",
		"[attr]mine text\n*.txt mine\n",
		"\"crlf.txt\" text\n",
		"* -diff text\n",
	}
	for _, content := range plain {
		if converts, changed := attrsCase(t, content); converts || len(changed) > 0 {
			t.Errorf("%q: attributesConvert says %v, git converted %v", content, converts, changed)
		}
	}
	for _, content := range converting {
		if converts, changed := attrsCase(t, content); !converts || len(changed) == 0 {
			t.Errorf("%q: attributesConvert says %v, git converted %v", content, converts, changed)
		}
	}
}

// TestAttributesConvertRandom: random lines of attributes; wherever
// attributesConvert says none converts, git stores every sample as its
// bytes.
func TestAttributesConvertRandom(t *testing.T) {
	patterns := []string{"*", "*.txt", "*.c", "a.md", "\"l1.txt\"", "sub/", "**/*.md", "\"*\\\".txt\""}
	tokens := []string{"text", "-text", "!text", "text=auto", "binary", "eol=crlf", "-eol", "ident", "-ident",
		"filter=up", "-filter", "crlf", "-crlf", "crlf=input", "diff", "-diff", "merge=union", "export-ignore",
		"linguist-vendored", "working-tree-encoding=ISO-8859-1", "delta", "unknown", "text=", "=text"}
	rng := rand.New(rand.NewPCG(46, 1))
	for range 40 {
		var b strings.Builder
		for range 1 + rng.IntN(3) {
			b.WriteString(patterns[rng.IntN(len(patterns))])
			for range 1 + rng.IntN(3) {
				b.WriteString(" " + tokens[rng.IntN(len(tokens))])
			}
			b.WriteString("\n")
		}
		if converts, changed := attrsCase(t, b.String()); !converts && len(changed) > 0 {
			t.Errorf("%q: attributesConvert says none converts, git converted %v", b.String(), changed)
		}
	}
}

// attrsCase writes content as the top .gitattributes of a new repository
// holding the samples, and returns attributesConvert's answer and the
// samples git stores otherwise than as their bytes.
func attrsCase(t *testing.T, content string) (converts bool, changed []string) {
	t.Helper()
	files := map[string]string{".gitattributes": content}
	for name, data := range attrSamples {
		files[name] = data
	}
	r := gittest.NewRepoWith(t, files)
	r.Git("config", "filter.up.clean", "tr a A")
	converts = attributesConvert(filepath.Join(r.Dir, ".gitattributes"))
	for name := range attrSamples {
		stored := r.Git("hash-object", "--path="+name, name)
		raw := r.Git("hash-object", "--no-filters", name)
		if stored != raw {
			changed = append(changed, name)
		}
	}
	return converts, changed
}

// TestLineConverts pins the parsing of one line.
func TestLineConverts(t *testing.T) {
	for line, want := range map[string]bool{
		"":                                   false,
		"# *.txt text":                       false,
		"*.txt":                              false,
		"*.txt -text":                        false,
		"*.txt text":                         true,
		"*.txt\ttext=auto":                   true,
		"\"a b\" text":                       true,
		"\"a \\\" text\" -text":              false,
		"\"never closed text":                true,
		"[attr]bin -text":                    true,
		"*.txt filter=lfs -text":             true,
		"*.txt working-tree-encoding=UTF-16": true,
	} {
		if got := lineConverts(line); got != want {
			t.Errorf("lineConverts(%q) = %v, want %v", line, got, want)
		}
	}
	if !attributesConvert(filepath.Join(t.TempDir(), "missing")) {
		t.Error("an attributes file that cannot be read is taken to convert nothing")
	}
	big := filepath.Join(t.TempDir(), ".gitattributes")
	if err := os.WriteFile(big, []byte(strings.Repeat("# padding\n", maxAttributesBytes/10+1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if !attributesConvert(big) {
		t.Errorf("an attributes file over %d bytes is read", maxAttributesBytes)
	}
}

// TestConvertedBlobsPackedOrAdopted: where git converts, the blobs it
// writes for a per-tool capture go into the capture's pack, but one over
// maxPackedFile goes into the repository loose, as git would have written
// it; neither is lost with the directory git wrote them into.
func TestConvertedBlobsPackedOrAdopted(t *testing.T) {
	r := gittest.NewRepoWith(t, map[string]string{".gitattributes": "*.txt text\n", "small.txt": "s\n", "big.txt": "b\n"})
	c, j := capturerOf(t, r)
	c.sysAttrs = []string{}
	c.Git.Objects = git.ObjectDir(c.Git.Env, c.Repo, false) // as a workspace's runner has it
	big := strings.Repeat("line\r\n", maxPackedFile/5+100)  // over maxPackedFile once its line ends are LF
	write(t, filepath.Join(c.Repo.Top, "small.txt"), "small\r\n")
	write(t, filepath.Join(c.Repo.Top, "big.txt"), big)
	rec, err := c.Capture(context.Background(), j, Options{Reason: "tool", Only: []string{"small.txt", "big.txt"}})
	if err != nil {
		t.Fatal(err)
	}
	if !rec.Partial {
		t.Fatal("not a partial capture")
	}
	loose := func(name string) bool {
		id := r.Git("rev-parse", rec.Commit+":"+name)
		_, err := os.Stat(filepath.Join(c.Repo.CommonDir, "objects", id[:2], id[2:]))
		return err == nil
	}
	if got := r.Git("cat-file", "-p", rec.Commit+":small.txt"); got != "small" {
		t.Errorf("small.txt stored as %q", got)
	}
	if loose("small.txt") {
		t.Error("small.txt's blob is loose: it was not packed with the trees")
	}
	if !loose("big.txt") {
		t.Error("big.txt's blob is not loose: a blob over maxPackedFile was packed")
	}
	if got := r.Git("cat-file", "-s", rec.Commit+":big.txt"); got != strconv.Itoa(len(strings.ReplaceAll(big, "\r\n", "\n"))) {
		t.Errorf("big.txt stored with %s bytes", got)
	}
	if _, err := os.Stat(c.Store.Path("partial-objects")); !os.IsNotExist(err) {
		t.Errorf("the directory git wrote the blobs into is left: %v", err)
	}
}

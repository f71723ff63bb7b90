package git

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/gitformat"
	"github.com/git-checkpoint/git-checkpoint/internal/gittest"
)

// TestStoreTreeAgreesWithMktree: the tree StoreTree writes is the one
// git mktree writes of the same entries, in git's order, where a
// directory sorts as if its name ended in a slash.
func TestStoreTreeAgreesWithMktree(t *testing.T) {
	repo := gittest.NewRepo(t)
	r := &Runner{Dir: repo.Dir, Env: repo.Env}
	ctx := context.Background()
	blob, err := r.WriteBlob(ctx, []byte("x\n"))
	if err != nil {
		t.Fatal(err)
	}
	empty, err := r.WriteEmptyTree(ctx)
	if err != nil {
		t.Fatal(err)
	}
	entries := []TreeEntry{
		{Mode: "100644", Type: "blob", OID: blob, Path: "a.b"},
		{Mode: "040000", Type: "tree", OID: empty, Path: "a"},
		{Mode: "100755", Type: "blob", OID: blob, Path: "a-"},
		{Mode: "100644", Type: "blob", OID: blob, Path: "b"},
	}
	got, err := r.StoreTree(ctx, entries)
	if err != nil {
		t.Fatal(err)
	}
	var in strings.Builder
	for _, e := range entries {
		fmt.Fprintf(&in, "%s %s %s\t%s\x00", e.Mode, e.Type, e.OID, e.Path)
	}
	want := strings.TrimSpace(repo.GitInput(in.String(), "mktree", "-z"))
	if got != want {
		t.Fatalf("StoreTree wrote %s, git mktree %s", got, want)
	}
	if typ := strings.TrimSpace(repo.Git("cat-file", "-t", got)); typ != "tree" {
		t.Fatalf("%s is a %s", got, typ)
	}
	if _, err := r.StoreTree(ctx, append(entries, entries[0])); err == nil {
		t.Fatal("a tree with a name twice was stored")
	}
	for _, bad := range []string{"", ".", "..", "a/b", "nul\x00"} {
		if _, err := r.StoreTree(ctx, []TreeEntry{{Mode: "100644", Type: "blob", OID: blob, Path: bad}}); err == nil {
			t.Errorf("a tree with an entry named %q was stored", bad)
		}
	}
}

// TestLocalURL: which push URLs git takes for a path on this machine,
// whose receiving git a push then names with the durable configuration.
func TestLocalURL(t *testing.T) {
	for u, want := range map[string]bool{
		"/srv/repo.git": true, "../remote.git": true, "remote.git": true, "file:///srv/repo.git": true,
		"./a:b": true, "host:repo.git": false, "git@host:repo.git": false, "ssh://host/repo.git": false,
		"https://host/repo.git": false, "git://host/repo.git": false, "": false,
	} {
		if got := localURL(u); got != want {
			t.Errorf("localURL(%q) = %v, want %v", u, got, want)
		}
	}
}

// TestWritePackBothWays: WritePack stores its objects whether the runner
// knows the object directory (the pack and its index written here) or
// not (git index-pack names them), and the same objects either way; and
// WriteLoose stores them loose. git then reads each, and fsck finds the
// repository whole.
func TestWritePackBothWays(t *testing.T) {
	ctx := context.Background()
	for _, way := range []string{"here", "index-pack", "loose"} {
		t.Run(way, func(t *testing.T) {
			r, dir := newRepo(t)
			var objs []Object
			for i := range 3 {
				body := []byte(fmt.Sprintf("object %d written %s\n", i, way))
				objs = append(objs, Object{ID: gitformat.ID("blob", body, 40), Type: "blob", Body: body})
			}
			var trace strings.Builder
			r.Trace = &trace
			var err error
			switch way {
			case "here":
				r.Objects = filepath.Join(dir, ".git", "objects")
				err = r.WritePack(ctx, objs, false)
			case "index-pack":
				err = r.WritePack(ctx, objs, false)
			case "loose":
				err = r.WriteLoose(ctx, objs, false)
			}
			if err != nil {
				t.Fatal(err)
			}
			if ran := strings.Contains(trace.String(), "git index-pack"); ran != (way == "index-pack") {
				t.Errorf("stored %s, git index-pack ran: %v\n%s", way, ran, trace.String())
			}
			r.Trace = nil
			for _, o := range objs {
				if got := run(t, r, "cat-file", "blob", o.ID); got+"\n" != string(o.Body) {
					t.Errorf("%s: git reads %q, want %q", o.ID, got, o.Body)
				}
			}
			counts := run(t, r, "count-objects", "-v")
			inPack := strings.Contains(counts, "in-pack: 3\n")
			if inPack != (way != "loose") {
				t.Errorf("stored %s, count-objects says:\n%s", way, counts)
			}
			run(t, r, "fsck", "--strict")
		})
	}
}

package git

import (
	"slices"
	"testing"
)

// TestAnchor checks that a caller's GIT_DIR and GIT_WORK_TREE are replaced
// by the absolute paths Discover found, and that they are added when the
// caller set neither: from the top of a tree whose git directory is
// elsewhere (core.worktree), git would find no repository.
func TestAnchor(t *testing.T) {
	repo := &Repo{GitDir: "/r/.git", Top: "/r"}
	got := Anchor([]string{"HOME=/h", "GIT_DIR=../.git", "PATH=/bin"}, repo)
	want := []string{"HOME=/h", "PATH=/bin", "GIT_DIR=/r/.git", "GIT_WORK_TREE=/r"}
	if !slices.Equal(got, want) {
		t.Errorf("Anchor = %q, want %q", got, want)
	}
	got = Anchor([]string{"GIT_WORK_TREE=..", "GIT_DIR=x"}, repo)
	if !slices.Equal(got, []string{"GIT_DIR=/r/.git", "GIT_WORK_TREE=/r"}) {
		t.Errorf("Anchor = %q", got)
	}
	plain := []string{"HOME=/h", "GIT_DIRX=1"}
	if got, want := Anchor(plain, repo), append(plain, "GIT_DIR=/r/.git", "GIT_WORK_TREE=/r"); !slices.Equal(got, want) {
		t.Errorf("Anchor without GIT_DIR = %q, want %q", got, want)
	}
}

// TestWithoutLocalVars checks that a nested call loses every variable that
// ties git to the outer repository and keeps the rest.
func TestWithoutLocalVars(t *testing.T) {
	env := []string{"GIT_DIR=/r/.git", "GIT_OBJECT_DIRECTORY=/r/.git/objects", "GIT_COMMON_DIR=/r/.git",
		"GIT_CONFIG_PARAMETERS='x.y'='1'", "GIT_AUTHOR_NAME=a", "HOME=/h"}
	got := without(env, localVars)
	if want := []string{"GIT_AUTHOR_NAME=a", "HOME=/h"}; !slices.Equal(got, want) {
		t.Errorf("without = %q, want %q", got, want)
	}
}

// TestOwns checks which paths of the tree are the repository's own
// directory: a git directory elsewhere in the tree and what is below it,
// never a name that only begins alike, nor anything when the git
// directory is outside the tree.
func TestOwns(t *testing.T) {
	home := &Repo{Top: "/h", GitDir: "/h/.dotfiles", CommonDir: "/h/.dotfiles"}
	for p, want := range map[string]bool{".dotfiles": true, ".dotfiles/": true, ".dotfiles/objects/ab/cd": true,
		".dotfiles2": false, ".bashrc": false, "a/.dotfiles": false} {
		if got := home.Owns(p); got != want {
			t.Errorf("Owns(%q) = %v, want %v", p, got, want)
		}
	}
	away := &Repo{Top: "/w/tree", GitDir: "/w/repo/.git", CommonDir: "/w/repo/.git"}
	if away.Owns("repo/.git") || away.Owns(".git") {
		t.Error("a git directory outside the tree owns a path of it")
	}
}

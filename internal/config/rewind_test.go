package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/git"
)

// TestWithin weighs checkpoint.mcpRewind by where each value was set:
// only the person's global or system file, outside the repository and
// not named by the environment, turns it on; false counts from any file.
func TestWithin(t *testing.T) {
	dir := t.TempDir()
	top := filepath.Join(dir, "repo")
	dotfiles := filepath.Join(dir, "dotfiles")
	for _, d := range []string{top, dotfiles, filepath.Join(dir, "home")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A HOME that is a link to a folder of the tree leads into it.
	if err := os.Symlink(filepath.Join(top, "sub"), filepath.Join(dir, "linkhome")); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(top, "sub"), 0o755)
	global := "file:" + filepath.Join(dir, "home", ".gitconfig")
	for _, c := range []struct {
		name    string
		entries []git.ConfigEntry
		env     []string
		on      bool
		ignored int
	}{
		{"global", []git.ConfigEntry{{Key: "checkpoint.mcprewind", Value: "true", Scope: "global", Origin: global}}, nil, true, 0},
		{"system", []git.ConfigEntry{{Key: "checkpoint.mcpRewind", Value: "yes", Scope: "system", Origin: "file:/etc/gitconfig"}}, nil, true, 0},
		{"local", []git.ConfigEntry{{Key: "checkpoint.mcprewind", Value: "true", Scope: "local", Origin: "file:.git/config"}}, nil, false, 1},
		{"command", []git.ConfigEntry{{Key: "checkpoint.mcprewind", Value: "true", Scope: "command", Origin: "command line:"}}, nil, false, 1},
		{"GIT_CONFIG", []git.ConfigEntry{{Key: "checkpoint.mcprewind", Value: "true", Scope: "command", Origin: global}}, nil, false, 1},
		{"named global", []git.ConfigEntry{{Key: "checkpoint.mcprewind", Value: "true", Scope: "global", Origin: global}},
			[]string{"GIT_CONFIG_GLOBAL=" + filepath.Join(dir, "home", ".gitconfig")}, false, 1},
		{"include into the tree", []git.ConfigEntry{{Key: "checkpoint.mcprewind", Value: "true", Scope: "global", Origin: "file:" + filepath.Join(top, "shared.gitconfig")}}, nil, false, 1},
		{"home linked into the tree", []git.ConfigEntry{{Key: "checkpoint.mcprewind", Value: "true", Scope: "global", Origin: "file:" + filepath.Join(dir, "linkhome", ".gitconfig")}}, nil, false, 1},
		{"local false turns it off", []git.ConfigEntry{
			{Key: "checkpoint.mcprewind", Value: "true", Scope: "global", Origin: global},
			{Key: "checkpoint.mcprewind", Value: "false", Scope: "local", Origin: "file:.git/config"}}, nil, false, 0},
		{"command false does not", []git.ConfigEntry{
			{Key: "checkpoint.mcprewind", Value: "true", Scope: "global", Origin: global},
			{Key: "checkpoint.mcprewind", Value: "false", Scope: "command", Origin: "command line:"}}, nil, true, 0},
	} {
		cfg, err := parse(c.entries, c.env)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if cfg.MCPRewind {
			t.Errorf("%s: on before Within", c.name)
		}
		cfg.Within(top, filepath.Join(top, ".git"))
		if cfg.MCPRewind != c.on || len(cfg.MCPIgnored) != c.ignored {
			t.Errorf("%s: on %v, ignored %v; want %v, %d ignored", c.name, cfg.MCPRewind, cfg.MCPIgnored, c.on, c.ignored)
		}
	}

	// A ~/.gitconfig that is a link into the person's dotfiles repository
	// counts: the link is the person's.
	link := filepath.Join(dir, "home", ".gitconfig")
	os.Symlink(filepath.Join(dotfiles, "gitconfig"), link)
	cfg, _ := parse([]git.ConfigEntry{{Key: "checkpoint.mcprewind", Value: "true", Scope: "global", Origin: "file:" + link}}, nil)
	cfg.Within(dotfiles, filepath.Join(dotfiles, ".git"))
	if !cfg.MCPRewind {
		t.Errorf("a global file linked into the repository being used does not count: %v", cfg.MCPIgnored)
	}
}

package config

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/gittest"
)

// cacheLoad loads the configuration of repo through its cache at now,
// with env, saves it, and reports whether git was asked.
func cacheLoad(t *testing.T, repo *gittest.Repo, env []string, now time.Time) (Config, bool) {
	t.Helper()
	var trace strings.Builder
	gitDir := filepath.Join(repo.Dir, ".git")
	c := NewCache(gitDir, env, now)
	cfg, err := c.Load(context.Background(), &git.Runner{Dir: repo.Dir, Env: env, Trace: &trace})
	if err != nil {
		t.Fatal(err)
	}
	c.Save()
	return cfg, strings.Contains(trace.String(), "trace: git config ")
}

// TestCache: an answer is believed while nothing it was read from has
// changed and it is younger than cacheFor; each change (the repository's
// file, the global one, the variables of `git -c`, the clock) makes the
// next load ask git, and a variable git finds no configuration by does
// not.
func TestCache(t *testing.T) {
	repo := gittest.NewRepo(t)
	if err := os.Mkdir(filepath.Join(repo.Dir, ".git", "checkpoints"), 0o755); err != nil {
		t.Fatal(err)
	}
	repo.Git("config", "checkpoint.keep", "7")
	env := repo.Env
	t0 := time.Unix(1_800_000_000, 0)
	step := func(name string, env []string, now time.Time, wantAsked bool, wantKeep int) {
		t.Helper()
		cfg, asked := cacheLoad(t, repo, env, now)
		if asked != wantAsked || cfg.Keep != wantKeep {
			t.Errorf("%s: asked git %v, keep %d; want %v, %d", name, asked, cfg.Keep, wantAsked, wantKeep)
		}
	}
	step("first", env, t0, true, 7)
	step("kept", env, t0.Add(time.Second), false, 7)
	step("a variable git reads none by", append(env, "GIT_EXEC_PATH=/elsewhere"), t0.Add(2*time.Second), false, 7)
	step("git -c", append(env, "GIT_CONFIG_PARAMETERS='checkpoint.keep'='9'"), t0.Add(3*time.Second), true, 9)
	step("back without -c", env, t0.Add(4*time.Second), true, 7)
	step("too old", env, t0.Add(4*time.Second+cacheFor+time.Second), true, 7)
	step("clock set back", env, t0, true, 7)
	repo.Git("config", "checkpoint.keep", "8")
	step("repository's file", env, t0.Add(time.Second), true, 8)
	home := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v
		}
	}
	repo.Git("config", "--unset", "checkpoint.keep")
	step("unset", env, t0.Add(2*time.Second), true, 200)
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[checkpoint]\n\tkeep = 5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	step("global file made", env, t0.Add(3*time.Second), true, 5)
	step("kept again", env, t0.Add(4*time.Second), false, 5)
}

// TestCacheKeepsNoInclude: a configuration with an include is read from
// git every time, so a change in the included file, which no stamp sees,
// counts at once.
func TestCacheKeepsNoInclude(t *testing.T) {
	repo := gittest.NewRepo(t)
	if err := os.Mkdir(filepath.Join(repo.Dir, ".git", "checkpoints"), 0o755); err != nil {
		t.Fatal(err)
	}
	limits := filepath.Join(repo.Dir, ".git", "limits.conf")
	if err := os.WriteFile(limits, []byte("[checkpoint]\n\tkeep = 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	repo.Git("config", "includeIf.gitdir:/.path", "limits.conf")
	now := time.Unix(1_800_000_000, 0)
	for i, want := range []int{3, 3, 4} {
		if i == 2 {
			if err := os.WriteFile(limits, []byte("[checkpoint]\n\tkeep = 4\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		cfg, asked := cacheLoad(t, repo, repo.Env, now.Add(time.Duration(i)*time.Second))
		if !asked || cfg.Keep != want {
			t.Errorf("load %d: asked git %v, keep %d; want true, %d", i, asked, cfg.Keep, want)
		}
	}
	if _, err := os.Stat(filepath.Join(repo.Dir, ".git", "checkpoints", "config.cache")); err == nil {
		t.Error("a configuration with an include was kept")
	}
}

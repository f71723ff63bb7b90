package config

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
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
	c := NewCache(repo.Dir, gitDir, env, now)
	cfg, err := c.Load(context.Background(), &git.Runner{Dir: repo.Dir, Env: env, Trace: &trace})
	if err != nil {
		t.Fatal(err)
	}
	c.Settle(&git.Repo{GitDir: gitDir, CommonDir: gitDir}, repo.Dir)
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
	// Run as `git checkpoint`, git puts its exec path first on PATH: the
	// same git, and the same answer as for a hook that runs the binary.
	step("run by git", underGit(env, "/usr/lib/git-core"), t0.Add(2*time.Second), false, 7)
	step("another git first on PATH", underPath(env, "/opt/other-git/bin"), t0.Add(2*time.Second), true, 7)
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

// underPath is env with dir first on PATH.
func underPath(env []string, dir string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if p, ok := strings.CutPrefix(kv, "PATH="); ok {
			kv = "PATH=" + dir + string(os.PathListSeparator) + p
		}
		out = append(out, kv)
	}
	return out
}

// underGit is env as git passes it to a command it runs: its exec path
// in GIT_EXEC_PATH and first on PATH.
func underGit(env []string, execPath string) []string {
	return append(underPath(env, execPath), "GIT_EXEC_PATH="+execPath)
}

// TestCacheKeepsAnEmptyAnswer: a configuration with none of the keys
// asked for (git answers nothing) is kept like any other.
func TestCacheKeepsAnEmptyAnswer(t *testing.T) {
	repo := gittest.NewRepo(t)
	if err := os.Mkdir(filepath.Join(repo.Dir, ".git", "checkpoints"), 0o755); err != nil {
		t.Fatal(err)
	}
	repo.Git("config", "--unset", "core.filemode")
	now := time.Unix(1_800_000_000, 0)
	for i, wantAsked := range []bool{true, false} {
		cfg, asked := cacheLoad(t, repo, repo.Env, now.Add(time.Duration(i)*time.Second))
		if asked != wantAsked || !reflect.DeepEqual(cfg, Default()) {
			t.Errorf("load %d: asked git %v, config %+v; want %v, the defaults", i, asked, cfg, wantAsked)
		}
	}
}

// TestCacheSettleWrongGuess: when discovery finds another repository than
// the guess, an answer from the guessed one's file must be read again from
// git, one read from git need not, and neither is kept.
func TestCacheSettleWrongGuess(t *testing.T) {
	repo := gittest.NewRepo(t)
	gitDir := filepath.Join(repo.Dir, ".git")
	if err := os.Mkdir(filepath.Join(gitDir, "checkpoints"), 0o755); err != nil {
		t.Fatal(err)
	}
	other := &git.Repo{GitDir: filepath.Join(t.TempDir(), ".git")}
	other.CommonDir = other.GitDir
	now := time.Unix(1_800_000_000, 0)
	load := func(at time.Time) *Cache {
		c := NewCache(repo.Dir, gitDir, repo.Env, at)
		if _, err := c.Load(context.Background(), &git.Runner{Dir: repo.Dir, Env: repo.Env}); err != nil {
			t.Fatal(err)
		}
		return c
	}
	if again := load(now).Settle(other, repo.Dir); again {
		t.Error("an answer read from git was read again")
	}
	if _, err := os.Stat(filepath.Join(gitDir, "checkpoints", "config.cache")); err == nil {
		t.Error("an answer was kept for a guess discovery did not confirm")
	}
	load(now).Settle(&git.Repo{GitDir: gitDir, CommonDir: gitDir}, repo.Dir)
	if again := load(now.Add(time.Second)).Settle(other, repo.Dir); !again {
		t.Error("an answer from the guessed repository's file was used for another")
	}
}

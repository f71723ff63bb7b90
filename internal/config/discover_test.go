package config

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/gittest"
)

// TestCacheKeepsDiscovery: discovery's answer is kept for the directory
// it ran from, and whenever the cache answers, its answer is git's own at
// that moment. Each change below that moves HEAD, the ref it names, the
// packed refs or the directory asked from makes the next command ask git;
// so do an answer too old, another namespace, and a branch that is a
// symbolic ref (never kept).
func TestCacheKeepsDiscovery(t *testing.T) {
	repo := gittest.NewRepo(t)
	top, err := filepath.EvalSymlinks(repo.Dir)
	if err != nil {
		t.Fatal(err)
	}
	gitDir := filepath.Join(top, ".git")
	if err := os.Mkdir(filepath.Join(gitDir, "checkpoints"), 0o755); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(top, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	t0 := time.Unix(1_800_000_000, 0)
	step := func(name, dir string, env []string, now time.Time, wantKept bool) {
		t.Helper()
		truth, err := git.Discover(ctx, &git.Runner{Dir: dir, Env: env})
		if err != nil {
			t.Fatal(err)
		}
		c := NewCache(top, gitDir, env, now)
		got, kept := c.Repo(dir)
		if !kept {
			r := &git.Runner{Dir: dir, Env: env}
			if _, err := c.Load(ctx, r); err != nil {
				t.Fatal(err)
			}
			if got, err = git.Discover(ctx, r); err != nil {
				t.Fatal(err)
			}
			c.Settle(got, dir)
		}
		if kept != wantKept {
			t.Errorf("%s: kept answer used %v, want %v", name, kept, wantKept)
		}
		if !reflect.DeepEqual(got, truth) {
			t.Errorf("%s: answer %+v, git says %+v", name, got, truth)
		}
	}
	env := repo.Env
	commit := func(msg string) {
		repo.Write(map[string]string{"f.txt": msg})
		repo.Git("add", "f.txt")
		repo.Git("commit", "-q", "-m", msg)
	}
	step("unborn, first", top, env, t0, false)
	step("unborn, kept", top, env, t0.Add(time.Second), true)
	commit("one")
	step("first commit", top, env, t0.Add(2*time.Second), false)
	step("kept", top, env, t0.Add(3*time.Second), true)
	commit("two")
	step("a commit moves the branch", top, env, t0.Add(4*time.Second), false)
	step("another directory", sub, env, t0.Add(5*time.Second), false)
	step("kept there", sub, env, t0.Add(5*time.Second), true)
	step("back at the top", top, env, t0.Add(6*time.Second), false)
	repo.Git("checkout", "-q", "-b", "other")
	step("checkout of another branch", top, env, t0.Add(7*time.Second), false)
	repo.Git("pack-refs", "--all")
	step("refs packed", top, env, t0.Add(8*time.Second), false)
	step("kept with packed refs", top, env, t0.Add(9*time.Second), true)
	commit("three")
	step("a commit onto a packed branch", top, env, t0.Add(10*time.Second), false)
	repo.Git("checkout", "-q", "--detach")
	step("detached", top, env, t0.Add(11*time.Second), false)
	step("kept detached", top, env, t0.Add(12*time.Second), true)
	repo.Git("reset", "-q", "--hard", "HEAD~1")
	step("a detached reset", top, env, t0.Add(13*time.Second), false)
	step("too old", top, env, t0.Add(14*time.Second+cacheFor+time.Second), false)
	step("another namespace", top, append(env, "GIT_NAMESPACE=ns"), t0.Add(15*time.Second+cacheFor), false)
	repo.Git("checkout", "-q", "other")
	repo.Git("symbolic-ref", "refs/heads/alias", "refs/heads/other")
	repo.Git("symbolic-ref", "HEAD", "refs/heads/alias")
	step("a branch that is a symbolic ref", top, env, t0.Add(16*time.Second+cacheFor), false)
	step("never kept", top, env, t0.Add(17*time.Second+cacheFor), false)
}

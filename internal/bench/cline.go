package bench

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Cline's checkpoints, from github.com/cline/cline. Its older
// CheckpointTracker (a shadow repository whose work tree is the project:
// git add . and a commit, like Gemini CLI's) was deleted in June 2026;
// what runs now is the SDK's. Per user turn,
// sdk/packages/core/src/hooks/checkpoint-hooks.ts (createCheckpointHooks,
// createWorktreeStashCommit, createUntrackedParentCommit) runs git stash
// create, git ls-files --others --exclude-standard, and when there are
// untracked files adds them all to a new, temporary index (git add
// --force --pathspec-from-file) for write-tree and commit-tree, then joins
// the stash and that commit as a three-parent commit (rev-parse three
// times, commit-tree), and keeps it with update-ref. A restore
// (sdk/packages/core/src/session/session-versioning-service.ts) first
// saves the tree (beginWorktreeRestoreTransaction in checkpoint-restore.ts:
// rev-parse, git stash push --include-untracked, update-ref, git stash
// drop), then applyCheckpointToWorktree checks the commits (cat-file -e),
// runs git reset --hard <stash>^1, git clean -fd and git stash apply, and
// the transaction's commit deletes its ref.

// clineGit runs one of Cline's git calls as runGit does (git -C cwd).
func (b *bed) clineGit(st *steps, env []string, args ...string) (string, error) {
	out, err := st.add(b.timed(env, nil, "git", append([]string{"-C", b.fx.dir}, args...)...))
	return trimOut(out), err
}

// clineCapture is createCheckpoint's git work; it returns the checkpoint.
func (b *bed) clineCapture() (sample, string, error) {
	st := newSteps()
	b.rv.n++
	ref, err := b.clineStash(st, fmt.Sprintf("cline checkpoint session=bench run=%d", b.rv.n))
	b.rv.clineStash = err == nil && ref != ""
	switch {
	case err != nil:
	case b.rv.clineStash:
		_, err = b.clineGit(st, nil, "update-ref", fmt.Sprintf("refs/cline/checkpoints/bench/%d", b.rv.n), ref)
	default:
		// No stash: Cline falls back to HEAD (createHeadCheckpoint).
		ref, err = b.clineGit(st, nil, "rev-parse", "HEAD")
	}
	s, err := st.done(err)
	return s, ref, err
}

// clineStash is createWorktreeStashCommit.
func (b *bed) clineStash(st *steps, message string) (string, error) {
	stash, err := b.clineGit(st, nil, "stash", "create", message)
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 && stash == "" {
		// git stash create (2.39) exits 1, printing nothing, when files
		// are only stat-dirty, as after a restore: no stash, and Cline
		// keeps HEAD. Any other failure is the case's.
		return "", nil
	}
	if err != nil {
		return "", err
	}
	untracked, err := b.clineUntracked(st)
	if err != nil {
		return "", err
	}
	if stash != "" {
		if untracked == "" {
			return stash, nil
		}
		var parts [3]string
		for i, rev := range []string{stash + "^{tree}", stash + "^1", stash + "^2"} {
			if parts[i], err = b.clineGit(st, nil, "rev-parse", rev); err != nil {
				return "", err
			}
		}
		return b.clineGit(st, nil, "commit-tree", parts[0], "-p", parts[1], "-p", parts[2], "-p", untracked, "-m", message)
	}
	if untracked == "" {
		return "", nil
	}
	head, err := b.clineGit(st, nil, "rev-parse", "HEAD")
	if err != nil {
		return "", err
	}
	tree, err := b.clineGit(st, nil, "rev-parse", "HEAD^{tree}")
	if err != nil {
		return "", err
	}
	index, err := b.clineGit(st, nil, "commit-tree", tree, "-p", head, "-m", "index on cline checkpoint")
	if err != nil {
		return "", err
	}
	return b.clineGit(st, nil, "commit-tree", tree, "-p", head, "-p", index, "-p", untracked, "-m", message)
}

// clineUntracked is createUntrackedParentCommit.
func (b *bed) clineUntracked(st *steps) (string, error) {
	listing, err := st.add(b.timed(nil, nil, "git", "-C", b.fx.dir, "ls-files", "--others", "--exclude-standard", "-z"))
	if err != nil {
		return "", err
	}
	files := splitZ(listing)
	if len(files) == 0 {
		return "", nil
	}
	tmp, err := os.MkdirTemp(b.scratch, "cline-checkpoint-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	pathspec := filepath.Join(tmp, "pathspec")
	if err := os.WriteFile(pathspec, []byte(strings.Join(files, "\x00")+"\x00"), 0o644); err != nil {
		return "", err
	}
	env := []string{"GIT_INDEX_FILE=" + filepath.Join(tmp, "index")}
	if _, err := b.clineGit(st, env, "add", "--force", "--pathspec-from-file", pathspec, "--pathspec-file-nul"); err != nil {
		return "", err
	}
	tree, err := b.clineGit(st, env, "write-tree")
	if err != nil {
		return "", err
	}
	return b.clineGit(st, env, "commit-tree", tree, "-m", "untracked files on cline checkpoint")
}

// clineRestore is a restore of the workspace to the checkpoint ref: the
// transaction around it and applyCheckpointToWorktree.
func (b *bed) clineRestore(ref string) (sample, error) {
	st := newSteps()
	steps := []func() error{
		func() error { _, err := b.clineGit(st, nil, "rev-parse", "--is-inside-work-tree"); return err },
	}
	var before, captured string
	private := "refs/cline/restore-transactions/bench"
	optional := func(r string) string {
		out, _ := st.add(b.timed(nil, nil, "git", "-C", b.fx.dir, "rev-parse", "--verify", "--quiet", r))
		return trimOut(out)
	}
	kind := "commit"
	steps = append(steps,
		func() error { _, err := b.clineGit(st, nil, "rev-parse", "--verify", "HEAD"); return err },
		func() error { before = optional("refs/stash"); return nil },
		func() error {
			_, err := b.clineGit(st, nil, "stash", "push", "--include-untracked", "--message", "cline restore transaction bench")
			return err
		},
		func() error { captured = optional("refs/stash"); return nil },
		func() error {
			if captured == "" || captured == before {
				return nil
			}
			if _, err := b.clineGit(st, nil, "update-ref", private, captured); err != nil {
				return err
			}
			_, err := b.clineGit(st, nil, "stash", "drop", "stash@{0}")
			return err
		},
		// applyCheckpointToWorktree
		func() error { _, err := b.clineGit(st, nil, "rev-parse", "--is-inside-work-tree"); return err },
		func() error { _, err := b.clineGit(st, nil, "cat-file", "-e", ref+"^{commit}"); return err },
		func() error {
			// The kind is stored with the checkpoint.
			if b.rv.clineStash {
				kind = "stash"
			}
			base := ref
			if kind == "stash" {
				base = ref + "^1"
			}
			if _, err := b.clineGit(st, nil, "cat-file", "-e", base+"^{commit}"); err != nil {
				return err
			}
			if kind == "stash" {
				if _, err := b.clineGit(st, nil, "cat-file", "-e", ref+"^2^{commit}"); err != nil {
					return err
				}
			}
			_, err := b.clineGit(st, nil, "cat-file", "-e", ref+"^3^{commit}")
			untracked := err == nil
			if _, err := b.clineGit(st, nil, "reset", "--hard", base); err != nil {
				return err
			}
			if untracked {
				if _, err := b.clineGit(st, nil, "clean", "-fd"); err != nil {
					return err
				}
			}
			if kind != "stash" {
				return nil
			}
			_, err = b.clineGit(st, nil, "stash", "apply", ref)
			return err
		},
		func() error { _, err := b.clineGit(st, nil, "update-ref", "-d", private); return err },
	)
	for _, step := range steps {
		if err := step(); err != nil {
			return st.done(err)
		}
	}
	return st.done(nil)
}

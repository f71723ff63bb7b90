package bench

import (
	"os"
	"path/filepath"
	"strings"
)

// Gemini CLI's checkpointing, from github.com/google-gemini/gemini-cli,
// packages/core/src/services/gitService.ts (GitService): a shadow
// repository in its history directory whose work tree is the project,
// with a configuration of its own (setupShadowGitRepository,
// getShadowRepoEnv). Before each tool call that changes files it runs
// createFileSnapshot: git add ., git status (simple-git's status: git
// status --porcelain -b -u --null), and a commit when anything changed,
// else git rev-parse HEAD. restoreProjectFromSnapshot runs git restore
// --source <commit> . and git clean -f -d.

func (b *bed) geminiDir() string { return filepath.Join(b.rv.dir, "gemini") }

// geminiEnv is getShadowRepoEnv's environment with the shadow repository
// as GIT_DIR and the project as GIT_WORK_TREE (shadowGitRepository).
func (b *bed) geminiEnv() []string {
	hist := b.geminiDir()
	return []string{"GIT_DIR=" + filepath.Join(hist, ".git"), "GIT_WORK_TREE=" + b.fx.dir,
		"GIT_CONFIG_GLOBAL=" + filepath.Join(hist, ".gitconfig"), "GIT_CONFIG_SYSTEM=" + filepath.Join(hist, ".gitconfig_system_empty"),
		"GIT_AUTHOR_NAME=Gemini CLI", "GIT_AUTHOR_EMAIL=gemini-cli@google.com",
		"GIT_COMMITTER_NAME=Gemini CLI", "GIT_COMMITTER_EMAIL=gemini-cli@google.com"}
}

// geminiInit is setupShadowGitRepository.
func (b *bed) geminiInit() error {
	hist := b.geminiDir()
	if err := writeFile(filepath.Join(hist, ".gitconfig"), []byte("[user]\n  name = Gemini CLI\n  email = gemini-cli@google.com\n[commit]\n  gpgsign = false\n")); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(hist, ".gitconfig_system_empty"), nil); err != nil {
		return err
	}
	env := append(append([]string(nil), b.env...), b.geminiEnv()[2:]...) // no GIT_DIR: init makes hist/.git
	for _, args := range [][]string{{"init", "-q", "--initial-branch=main"}, {"commit", "-q", "--allow-empty", "-m", "Initial commit"}} {
		if _, err := runQuiet(hist, env, nil, "git", args...); err != nil {
			return err
		}
	}
	ignore, err := os.ReadFile(filepath.Join(b.fx.dir, ".gitignore"))
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	return writeFile(filepath.Join(hist, ".gitignore"), ignore)
}

// geminiCapture is createFileSnapshot; it returns the commit.
func (b *bed) geminiCapture() (sample, string, error) {
	env, st := b.geminiEnv(), newSteps()
	if _, err := st.add(b.timed(env, nil, "git", "add", ".")); err != nil {
		return st.s, "", err
	}
	status, err := st.add(b.timed(env, nil, "git", "status", "--porcelain", "-b", "-u", "--null"))
	if err != nil {
		return st.s, "", err
	}
	clean := true
	for _, e := range splitZ(status) {
		if !strings.HasPrefix(e, "## ") {
			clean = false
		}
	}
	if !clean {
		_, err = st.add(b.timed(env, nil, "git", "commit", "-m", "bench snapshot", "--no-verify"))
	} else {
		_, err = st.add(b.timed(env, nil, "git", "rev-parse", "HEAD"))
	}
	s, err := st.done(err)
	if err != nil {
		return s, "", err
	}
	// simple-git reads the new commit from commit's output; here, untimed.
	head, err := runQuiet(b.fx.dir, append(append([]string(nil), b.env...), env...), nil, "git", "rev-parse", "HEAD")
	return s, trimOut(head), err
}

// geminiRestore is restoreProjectFromSnapshot.
func (b *bed) geminiRestore(commit string) (sample, error) {
	env, st := b.geminiEnv(), newSteps()
	if _, err := st.add(b.timed(env, nil, "git", "restore", "--source", commit, ".")); err != nil {
		return st.done(err)
	}
	_, err := st.add(b.timed(env, nil, "git", "clean", "-f", "-d"))
	return st.done(err)
}

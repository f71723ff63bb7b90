package agents

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
)

// aider commits every edit itself, with --no-verify; post-commit still
// runs, so a post-commit hook checkpoints after each of its edits. The
// hook is a marked block: in an existing shell hook it goes right after
// the #! line (before anything that could exit), so the user's hook keeps
// running after it; a hook in another language is renamed to
// post-commit.before-git-checkpoint and run by a small shell hook that
// runs git-checkpoint's first.
const (
	githookBegin = "# >>> git-checkpoint v1 >>>"
	githookEnd   = "# <<< git-checkpoint <<<"
	chainedName  = "post-commit.before-git-checkpoint"
)

// githookBlock is what install adds to post-commit.
func githookBlock() string {
	return githookBegin + "\n" +
		"# Checkpoints after each commit (aider commits every edit); 'git checkpoint uninstall aider' removes this.\n" +
		"command -v git-checkpoint >/dev/null 2>&1 && git-checkpoint hook aider post-commit || true\n" +
		githookEnd + "\n"
}

// chainLine runs the hook that was there before, as git would have.
const chainLine = `exec "$(dirname "$0")/` + chainedName + `" "$@"` + "\n"

// freshHook is post-commit when there was none, and the snippet.
func freshHook() string { return "#!/bin/sh\n" + githookBlock() }

// shellScript reports whether a hook is a script of a shell the block can
// be written in: a #! line naming one, or none (git runs those with sh).
func shellScript(src []byte) bool {
	if !bytes.HasPrefix(src, []byte("#!")) {
		return true // no #!: git runs it with sh
	}
	line, _, _ := bytes.Cut(src, []byte("\n"))
	return regexp.MustCompile(`^#!\s*(/usr)?(/local)?/bin/(env\s+)?(sh|bash|dash|zsh|ksh|ash)(\s|$)`).Match(line)
}

// githookBlockAt finds git-checkpoint's block in a hook.
func githookBlockAt(src string) (start, end int, ok bool) {
	i := strings.Index(src, "# >>> git-checkpoint ")
	if i < 0 || (i > 0 && src[i-1] != '\n') {
		return 0, 0, false
	}
	j := strings.Index(src[i:], githookEnd)
	if j < 0 {
		return 0, 0, false
	}
	return i, lineEnd(src, i+j), true
}

// postCommit is a config: git's post-commit hook, in the hooks directory
// git uses here.
type postCommit struct{}

func (postCommit) install(a Agent, _ string, env Env) ([]File, []string, error) {
	if env.HooksDir == "" {
		return nil, nil, notInRepo(a.Name)
	}
	files, notes, err := installGithook(env.HooksDir)
	if err != nil {
		return nil, nil, err
	}
	if env.HooksShared {
		notes = append(notes, "core.hooksPath makes "+env.HooksDir+" the hooks directory: every repository using it runs this hook")
	}
	return files, notes, nil
}

func (postCommit) uninstall(a Agent, _ string, env Env) ([]File, error) {
	if env.HooksDir == "" {
		return nil, notInRepo(a.Name)
	}
	return uninstallGithook(env.HooksDir)
}

func (postCommit) snippet(Agent) Snippet {
	return Snippet{"post-commit", "the repository's hooks directory ($(git rev-parse --git-path hooks)/post-commit), executable",
		freshHook()}
}

func notInRepo(agent string) error {
	return fault.New(fault.UnsupportedNoRepository, "not in a git repository: %s's hook is a git hook of one", agent).
		WithHint("run it inside the repository")
}

// installGithook writes or updates hooksDir/post-commit.
func installGithook(hooksDir string) ([]File, []string, error) {
	path := filepath.Join(hooksDir, "post-commit")
	src, err := readFile(path)
	if err != nil {
		return nil, nil, err
	}
	if src == nil {
		f, err := writeHook(path, nil, freshHook())
		return []File{f}, nil, err
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode()&0o111 == 0 {
		return nil, nil, fault.New(fault.ConflictHookNotExecutable, "%s exists but is not executable, so git does not run it", path).
			WithHint("make it executable (chmod +x) or remove it, then install again")
	}
	s := string(src)
	if start, end, ok := githookBlockAt(s); ok {
		f, err := writeHook(path, src, s[:start]+githookBlock()+s[end:])
		return []File{f}, nil, err
	}
	if shellScript(src) {
		at := 0
		if strings.HasPrefix(s, "#!") {
			at = lineEnd(s, 0)
			if !strings.HasSuffix(s[:at], "\n") {
				s += "\n"
				at = len(s)
			}
		}
		f, err := writeHook(path, src, s[:at]+githookBlock()+s[at:])
		return []File{f}, []string{"the post-commit hook that was there still runs, after git-checkpoint's"}, err
	}
	// Another language: keep it whole under another name and chain it.
	chained := filepath.Join(hooksDir, chainedName)
	if _, err := os.Lstat(chained); err == nil {
		return nil, nil, fault.New(fault.ConflictHookExists, "%s exists already", chained).
			WithHint("remove or rename it, then install again")
	}
	if err := os.Rename(path, chained); err != nil {
		return nil, nil, fault.Wrap(err, fault.FailedIO, "cannot rename %s", path)
	}
	f, err := writeHook(path, nil, freshHook()+chainLine)
	f.Action = "updated"
	return []File{f, {Path: chained, Action: "created"}},
		[]string{"the post-commit hook that was there is now " + chainedName + "; it still runs, after git-checkpoint's"}, err
}

// uninstallGithook removes the block, or undoes the chaining.
func uninstallGithook(hooksDir string) ([]File, error) {
	path := filepath.Join(hooksDir, "post-commit")
	src, err := readFile(path)
	if err != nil || src == nil {
		return []File{{Path: path, Action: "absent"}}, err
	}
	s := string(src)
	start, end, ok := githookBlockAt(s)
	if !ok {
		return []File{{Path: path, Action: "unchanged"}}, nil
	}
	rest := s[:start] + s[end:]
	chained := filepath.Join(hooksDir, chainedName)
	if _, err := os.Lstat(chained); err == nil && rest == "#!/bin/sh\n"+chainLine {
		if err := os.Rename(chained, path); err != nil {
			return nil, fault.Wrap(err, fault.FailedIO, "cannot rename %s back", chained)
		}
		return []File{{Path: path, Action: "updated"}, {Path: chained, Action: "removed"}}, nil
	}
	if rest == "#!/bin/sh\n" {
		f, err := removeFile(path)
		return []File{f}, err
	}
	f, err := writeHook(path, src, rest)
	return []File{f}, err
}

// writeHook writes an executable hook.
func writeHook(path string, old []byte, data string) (File, error) {
	if old != nil && string(old) == data {
		return File{Path: path, Action: "unchanged"}, nil
	}
	if err := writeAtomic(path, []byte(data), 0o755); err != nil {
		return File{}, err
	}
	if old == nil {
		return File{Path: path, Action: "created"}, nil
	}
	return File{Path: path, Action: "updated"}, nil
}

package checkpoint_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/agenttest"
)

// completionRepo is a repository with a labelled checkpoint (k1) and one
// turn (t1, a run: k1 at its start, k2 at its end), and a directory
// outside it to type commands from.
func completionRepo(t *testing.T) (repo, outside string, env []string) {
	t.Helper()
	outside = t.TempDir()
	repo = filepath.Join(outside, "repo")
	env = gitEnv(t)
	must(t, 0, outside, env, "git", "init", "-q", "-b", "main", "repo")
	must(t, 0, repo, env, "git", "checkpoint", "-m", "before the change")
	must(t, 0, repo, env, "git", "checkpoint", "run", "--", "sh", "-c", "echo hi > a.txt")
	return repo, outside, env
}

// gitBashCompletion finds git's own bash completion where distributions
// and git's own install put it; "" when there is none.
func gitBashCompletion() string {
	var dirs []string
	if out, err := exec.Command("pkg-config", "--variable=completionsdir", "bash-completion").Output(); err == nil {
		dirs = append(dirs, filepath.Join(strings.TrimSpace(string(out)), "git"))
	}
	dirs = append(dirs,
		"/usr/share/bash-completion/completions/git",
		"/usr/local/share/bash-completion/completions/git",
		"/opt/homebrew/etc/bash_completion.d/git-completion.bash",
		"/etc/bash_completion.d/git",
		"/usr/share/doc/git/contrib/completion/git-completion.bash")
	if out, err := exec.Command("git", "--exec-path").Output(); err == nil {
		exec := strings.TrimSpace(string(out))
		dirs = append(dirs, filepath.Join(exec, "../../share/git-core/contrib/completion/git-completion.bash"))
	}
	for _, p := range dirs {
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p
		}
	}
	return ""
}

// bashComplete types line in a real bash that has sourced git's bash
// completion and ours, and returns what bash would offer: the words
// split as readline splits them (at spaces and at '=', which is in
// COMP_WORDBREAKS), then the function `complete -p` names for the line's
// first word, as bash calls it on TAB.
func bashComplete(t *testing.T, dir string, env []string, gitCompletion, line string) []string {
	t.Helper()
	const driver = `
source "$GIT_COMPLETION" || exit 1
eval "$(git checkpoint completion bash)" || exit 1
COMP_LINE=$LINE COMP_POINT=${#LINE}
COMP_WORDS=()
for w in $LINE; do
	while [[ $w == *=* ]]; do
		[ -n "${w%%=*}" ] && COMP_WORDS+=("${w%%=*}")
		COMP_WORDS+=("=")
		w=${w#*=}
	done
	[ -n "$w" ] && COMP_WORDS+=("$w")
done
[[ $LINE == *" " || $LINE == *= ]] && COMP_WORDS+=("")
COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
spec=$(complete -p "${COMP_WORDS[0]}") || exit 1
fn=${spec##*-F }
fn=${fn%% *}
COMPREPLY=()
"$fn" "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
printf '%s|\n' "${COMPREPLY[@]}"
`
	r := must(t, 0, dir, append(env, "GIT_COMPLETION="+gitCompletion, "LINE="+line), "bash", "--norc", "--noprofile", "-c", driver)
	var out []string
	for _, l := range strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n") {
		if l != "" && l != "|" {
			out = append(out, strings.TrimSuffix(l, "|"))
		}
	}
	return out
}

// TestBashCompletion drives git's real bash completion with ours loaded,
// as TAB would: 'git checkpoint' and 'git rewind' complete commands,
// flags (a flag that takes a value ends in '=', without a space), enum
// values after '=' and after a space, and ids from the journal, newest
// first; git -C reaches the right repository; a path after -- is left to
// readline's file names; git-rewind typed alone completes the same.
func TestBashCompletion(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	gitCompletion := gitBashCompletion()
	if gitCompletion == "" {
		agenttest.Missing(t, "git's bash completion is not installed (Debian's git ships it as /usr/share/bash-completion/completions/git)")
	}
	repo, outside, env := completionRepo(t)
	for _, tc := range []struct {
		dir, line string
		want      []string
		has       []string // when the whole list is not the point
		lacks     []string
		prefix    string // every word offered starts with it (and some are)
	}{
		{dir: repo, line: "git checkpoint sh", want: []string{"show "}},
		{dir: repo, line: "git checkpoint ", has: []string{"list ", "log ", "completion ", "doctor "}, lacks: []string{"__complete "}},
		{dir: repo, line: "git checkpoint completion ", want: []string{"bash ", "zsh ", "fish "}},
		{dir: repo, line: "git checkpoint install c", want: []string{"claude ", "codex ", "copilot ", "cursor ", "cline "}},
		{dir: repo, line: "git rewind ", want: []string{"@ ", "t1 ", "k2 ", "k1 "}},
		{dir: repo, line: "git rewind k", want: []string{"k2 ", "k1 "}},
		{dir: repo, line: "git rewind --out", want: []string{"--outside="}},
		{dir: repo, line: "git rewind --outside=k", want: []string{"keep "}},
		{dir: repo, line: "git rewind --outside ", want: []string{"refuse ", "keep ", "overwrite "}},
		{dir: repo, line: "git rewind --only ", want: []string{"t1 "}},
		{dir: repo, line: "git rewind -n --dry", want: []string{"--dry-run "}},
		{dir: repo, line: "git checkpoint show --js", want: []string{"--json "}},
		{dir: repo, line: "git checkpoint diff k1 ", want: []string{"@ ", "t1 ", "k2 ", "k1 "}},
		{dir: repo, line: "git checkpoint diff k1 -- ", want: nil},
		{dir: repo, line: "git checkpoint list --session ", prefix: "run-"},
		{dir: repo, line: "git checkpoint bisect --good ", has: []string{"t1 ", "k1 "}},
		{dir: outside, line: "git -C repo rewind k", want: []string{"k2 ", "k1 "}},
		{dir: outside, line: "git rewind ", want: nil},
		{dir: repo, line: "git-rewind t", want: []string{"t1 "}},
		{dir: repo, line: "git-checkpoint lo", want: []string{"log "}},
	} {
		got := bashComplete(t, tc.dir, env, gitCompletion, tc.line)
		switch {
		case tc.prefix != "":
			if len(got) == 0 || slices.ContainsFunc(got, func(w string) bool { return !strings.HasPrefix(w, tc.prefix) }) {
				t.Errorf("%q offers %q, want words that start with %q", tc.line, got, tc.prefix)
			}
		case tc.has == nil && tc.lacks == nil && !slices.Equal(got, tc.want):
			t.Errorf("%q offers %q, want %q", tc.line, got, tc.want)
		default:
			for _, w := range tc.has {
				if !slices.Contains(got, w) {
					t.Errorf("%q offers %q, without %q", tc.line, got, w)
				}
			}
			for _, w := range tc.lacks {
				if slices.Contains(got, w) {
					t.Errorf("%q offers %q, with %q", tc.line, got, w)
				}
			}
		}
	}
}

// TestFishCompletion asks a real fish, with the script loaded as the
// manual says (git checkpoint completion fish | source), what it would
// offer: inside fish's own git completion, which keeps working for git's
// commands, and for git-rewind typed alone; ids with their descriptions.
func TestFishCompletion(t *testing.T) {
	if _, err := exec.LookPath("fish"); err != nil {
		agenttest.Missing(t, "fish is not installed (.ci/run installs Debian's)")
	}
	repo, outside, env := completionRepo(t)
	for _, tc := range []struct {
		dir, line string
		want      []string
		has       string
	}{
		{dir: repo, line: "git rewind ", want: []string{"@\tthe newest checkpoint", "t1\trun: sh -c echo hi > a.txt",
			"k2\trun_end t1: sh -c echo hi > a.txt", "k1\tmanual: before the change"}},
		{dir: outside, line: "git -C repo rewind k", want: []string{"k2\trun_end t1: sh -c echo hi > a.txt", "k1\tmanual: before the change"}},
		{dir: repo, line: "git checkpoint sh", want: []string{"show\tShow one checkpoint's record."}},
		{dir: repo, line: "git-rewind --outside=", want: []string{"--outside=refuse", "--outside=keep", "--outside=overwrite"}},
		{dir: repo, line: "git checkpoint diff k1 -- ", want: []string{"a.txt"}},
		{dir: repo, line: "git stat", has: "status\t"},
	} {
		r := must(t, 0, tc.dir, append(env, "LINE="+tc.line), "fish", "--no-config", "-c",
			`git checkpoint completion fish | source; and complete -C "$LINE"`)
		got := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
		switch {
		case tc.has != "":
			if !slices.ContainsFunc(got, func(l string) bool { return strings.HasPrefix(l, tc.has) }) {
				t.Errorf("%q offers %q, without %q (git's own completion)", tc.line, got, tc.has)
			}
		case !slices.Equal(got, tc.want):
			t.Errorf("%q offers %q, want %q", tc.line, got, tc.want)
		}
		if r.stderr != "" {
			t.Errorf("%q: fish printed on stderr:\n%s", tc.line, r.stderr)
		}
	}
}

// TestZshCompletion types TAB in a real interactive zsh on a terminal
// (tmux), with compinit and the script loaded as the manual says: zsh's
// own git completion calls _git-rewind, which lists the ids newest first
// with their descriptions, and a command name completes in place.
func TestZshCompletion(t *testing.T) {
	if _, err := exec.LookPath("zsh"); err != nil {
		agenttest.Missing(t, "zsh is not installed (.ci/run installs Debian's)")
	}
	repo, _, env := completionRepo(t)
	zdot := t.TempDir()
	writeFile(t, filepath.Join(zdot, ".zshrc"), `autoload -Uz compinit && compinit -u -d "$ZDOTDIR/.zcompdump"
source <(git checkpoint completion zsh)
PS1='zsh%% '
`, 0o644)
	tm := agenttest.StartTerminal(t, append(env, "ZDOTDIR="+zdot), repo, 100, 30, "exec zsh -i")
	tm.WaitFor("zsh%")
	tm.Keys("git rewind ", "Tab")
	screen := tm.WaitFor("k1  -- manual: before the change")
	var listed []string
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, " -- ") {
			listed = append(listed, l)
		}
	}
	want := []string{"@   -- the newest checkpoint", "t1  -- run: sh -c echo hi > a.txt",
		"k2  -- run_end t1: sh -c echo hi > a.txt", "k1  -- manual: before the change"}
	if !slices.Equal(listed, want) {
		t.Fatalf("git rewind <TAB> lists %q, want %q; the screen:\n%s", listed, want, screen)
	}
	tm.Keys("C-u", "git checkpoint sh", "Tab", "Enter")
	// "sh" became "show ": the command ran, and asked for its id.
	tm.WaitFor("zsh% git checkpoint show", "git-checkpoint: error: expected \"<id>\"")
}

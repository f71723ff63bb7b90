package bench

import (
	"os"
	"path/filepath"
	"strings"
)

// OpenCode's snapshot, from github.com/anomalyco/opencode (formerly
// sst/opencode), packages/opencode/src/snapshot/index.ts (Snapshot's
// layer): a git directory of its own in OpenCode's data directory, the
// project as its work tree. track (at each step of the agent) runs add:
// git rev-parse --git-path info/exclude in the project and a copy of that
// file as the snapshot's exclude (sync), git diff-files --name-only and
// git ls-files --others --exclude-standard at once, a stat of each listed
// file (those over 2 MB are added to the exclude), and git add --sparse .
// when either listed anything; then git write-tree. restore runs git
// read-tree <tree> and git checkout-index -a -f; revert (a session's
// revert to a message) runs, per 100 files, git ls-tree --name-only and
// git checkout <tree> -- files.

const opencodeLimit = 2 * 1024 * 1024

func (b *bed) opencodeDir() string { return filepath.Join(b.rv.dir, "opencode") }

// opencodeArgs are args with OpenCode's -c options and its git directory
// and work tree (the core, cfg and quote lists and args in the source).
func (b *bed) opencodeArgs(config []string, args ...string) []string {
	out := append([]string(nil), config...)
	return append(append(out, "--git-dir", b.opencodeDir(), "--work-tree", b.fx.dir), args...)
}

var (
	opencodeCore  = []string{"-c", "core.longpaths=true", "-c", "core.symlinks=true"}
	opencodeCfg   = append([]string{"-c", "core.autocrlf=false"}, opencodeCore...)
	opencodeQuote = append(append([]string(nil), opencodeCfg...), "-c", "core.quotepath=false")
)

// opencodeInit is track's first run: git init and its configuration.
func (b *bed) opencodeInit() error {
	dir := b.opencodeDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	env := append(append([]string(nil), b.env...), "GIT_DIR="+dir, "GIT_WORK_TREE="+b.fx.dir)
	if _, err := runQuiet(dir, env, nil, "git", "init", "-q"); err != nil {
		return err
	}
	for _, kv := range [][2]string{{"core.autocrlf", "false"}, {"core.longpaths", "true"}, {"core.symlinks", "true"}, {"core.fsmonitor", "false"}} {
		if _, err := runQuiet(dir, b.env, nil, "git", "--git-dir", dir, "config", kv[0], kv[1]); err != nil {
			return err
		}
	}
	return nil
}

// opencodeSync is sync: the project's info/exclude and the large files
// as the snapshot's exclude.
func (b *bed) opencodeSync(file string, large []string) error {
	var lines []string
	if file != "" {
		if text, err := os.ReadFile(file); err == nil && strings.TrimRight(string(text), " \t\r\n") != "" {
			lines = append(lines, strings.TrimRight(string(text), " \t\r\n"))
		}
	}
	for _, l := range large {
		lines = append(lines, "/"+l)
	}
	text := ""
	if len(lines) > 0 {
		text = strings.Join(lines, "\n") + "\n"
	}
	return writeFile(filepath.Join(b.opencodeDir(), "info", "exclude"), []byte(text))
}

// opencodeTrack is track; it returns the tree.
func (b *bed) opencodeTrack() (sample, string, error) {
	st := newSteps()
	out, err := st.add(b.timed(nil, nil, "git", "rev-parse", "--path-format=absolute", "--git-path", "info/exclude"))
	if err != nil {
		s, err := st.done(err)
		return s, "", err
	}
	exclude := trimOut(out)
	if _, err := os.Stat(exclude); err != nil {
		exclude = ""
	}
	if err := b.opencodeSync(exclude, nil); err != nil {
		s, err := st.done(err)
		return s, "", err
	}
	outs, err := b.parallel(st, nil,
		b.opencodeArgs(opencodeQuote, "diff-files", "--name-only", "-z", "--", "."),
		b.opencodeArgs(opencodeQuote, "ls-files", "--others", "--exclude-standard", "-z", "--", "."))
	if err != nil {
		s, err := st.done(err)
		return s, "", err
	}
	all := append(splitZ(outs[0]), splitZ(outs[1])...)
	if len(all) > 0 {
		var large []string
		for _, p := range all {
			if fi, err := os.Stat(filepath.Join(b.fx.dir, p)); err == nil && fi.Mode().IsRegular() && fi.Size() > opencodeLimit {
				large = append(large, p)
			}
		}
		if err := b.opencodeSync(exclude, large); err != nil {
			s, err := st.done(err)
			return s, "", err
		}
		if _, err := st.add(b.timed(nil, nil, "git", b.opencodeArgs(opencodeCfg, "add", "--sparse", ".")...)); err != nil {
			s, err := st.done(err)
			return s, "", err
		}
	}
	tree, err := st.add(b.timed(nil, nil, "git", b.opencodeArgs(nil, "write-tree")...))
	s, err := st.done(err)
	return s, trimOut(tree), err
}

// opencodeRestore is restore.
func (b *bed) opencodeRestore(tree string) (sample, error) {
	st := newSteps()
	if _, err := st.add(b.timed(nil, nil, "git", b.opencodeArgs(opencodeCore, "read-tree", tree)...)); err != nil {
		return st.done(err)
	}
	_, err := st.add(b.timed(nil, nil, "git", b.opencodeArgs(opencodeCore, "checkout-index", "-a", "-f")...))
	return st.done(err)
}

// opencodeRevert is revert of the files the case changed (one chunk of
// 100): the ones the snapshot holds are checked out of it.
func (b *bed) opencodeRevert(tree string) (sample, error) {
	st := newSteps()
	listed, err := st.add(b.timed(nil, nil, "git", b.opencodeArgs(opencodeCore, append([]string{"ls-tree", "--name-only", tree, "--"}, b.edited...)...)...))
	if err != nil {
		return st.done(err)
	}
	held := map[string]bool{}
	for _, l := range strings.Split(string(listed), "\n") {
		held[strings.TrimSpace(l)] = true
	}
	var restore []string
	for _, p := range b.edited {
		if held[p] {
			restore = append(restore, filepath.Join(b.fx.dir, p))
		} else if err := os.Remove(filepath.Join(b.fx.dir, p)); err != nil {
			return st.done(err)
		}
	}
	if len(restore) > 0 {
		_, err = st.add(b.timed(nil, nil, "git", b.opencodeArgs(opencodeCore, append([]string{"checkout", tree, "--"}, restore...)...)...))
	}
	return st.done(err)
}

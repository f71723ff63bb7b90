package scripttest

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// Commands returns the transcripts' custom commands.
func Commands() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"exits":     exits,
		"gitstate":  gitstate,
		"tree":      tree,
		"mkfile":    mkfile,
		"json":      jsonCheck,
		"grab":      grab,
		"subst":     subst,
		"waitempty": waitEmpty,
		"waitfile":  waitFile,
	}
}

// subst OLD NEW FILE... replaces every OLD with NEW in the files. Hook
// payloads recorded from the real agents name paths under their machine's
// directory; this moves them under $WORK (testscript expands variables in
// arguments, not in files).
func subst(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 {
		ts.Fatalf("usage: subst OLD NEW FILE...")
	}
	for _, name := range args[2:] {
		path := ts.MkAbs(name)
		data, err := os.ReadFile(path)
		ts.Check(err)
		ts.Check(os.WriteFile(path, []byte(strings.ReplaceAll(string(data), args[0], args[1])), 0o644))
	}
}

// waitempty DIR waits until DIR holds nothing (or is gone), for what a
// process of ours left running removes after the command returned (a
// rewind's old files); it fails after a minute, which only a removal
// that never happens takes.
func waitEmpty(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitempty DIR")
	}
	left, err := WaitEmpty(ts.MkAbs(args[0]), time.Minute)
	ts.Check(err)
	if len(left) > 0 {
		ts.Fatalf("%s still holds %q after a minute", args[0], left)
	}
}

// waitfile FILE waits until FILE exists: a failpoint's pause file, which
// a command paused at its step made (GIT_CHECKPOINT_FAILPOINT=STEP:pause=FILE);
// it fails after a minute.
func waitFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitfile FILE")
	}
	file := ts.MkAbs(args[0])
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, err := os.Lstat(file); err == nil {
			return
		}
	}
	ts.Fatalf("%s was not made within a minute: the command never paused", args[0])
}

// WaitEmpty waits up to limit until dir holds nothing (or is gone), and
// returns what it still held then: nil once it emptied.
func WaitEmpty(dir string, limit time.Duration) ([]string, error) {
	var left []string
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		entries, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		if len(entries) == 0 {
			return nil, nil
		}
		left = left[:0]
		for _, e := range entries {
			left = append(left, e.Name())
		}
	}
	return left, nil
}

// exits N PROG ARGS... runs PROG like exec and checks that it exits with
// exactly N (testscript's "!" only says "not zero").
func exits(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("exits does not take '!': give the exit status")
	}
	if len(args) < 2 {
		ts.Fatalf("usage: exits N prog args...")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		got = exit.ExitCode()
	case err != nil:
		ts.Fatalf("%v", err)
	}
	if got != want {
		ts.Fatalf("%s exited with %d, want %d", args[1], got, want)
	}
}

// mkfile [-x] PATH CONTENT writes a file. PATH and CONTENT are read as Go
// string literals without the quotes, so names with a newline or a tab
// ("a\nb") and binary content ("\x00\x01") can be written.
func mkfile(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("mkfile does not take '!'")
	}
	mode := os.FileMode(0o644)
	if len(args) > 0 && args[0] == "-x" {
		mode, args = 0o755, args[1:]
	}
	if len(args) != 2 {
		ts.Fatalf("usage: mkfile [-x] PATH CONTENT")
	}
	name, content := unquote(ts, args[0]), unquote(ts, args[1])
	path := ts.MkAbs(name)
	ts.Check(os.MkdirAll(filepath.Dir(path), 0o755))
	ts.Check(os.WriteFile(path, []byte(content), mode))
	ts.Check(os.Chmod(path, mode))
}

func unquote(ts *testscript.TestScript, s string) string {
	u, err := strconv.Unquote(`"` + strings.ReplaceAll(s, `"`, `\"`) + `"`)
	if err != nil {
		ts.Fatalf("bad escape in %q: %v", s, err)
	}
	return u
}

// gitstate save|check NAME [REPO] byte-compares everything of git's that a
// checkpoint or rewind must not change: the index, HEAD, refs and their
// reflogs (except refs/checkpoints), operation state such as MERGE_HEAD,
// info/exclude and config.
func gitstate(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || (args[0] != "save" && args[0] != "check") {
		ts.Fatalf("usage: gitstate save|check NAME [REPO]")
	}
	repo := "."
	if len(args) > 2 {
		repo = args[2]
	}
	gitDir := filepath.Join(ts.MkAbs(repo), ".git")
	if _, err := os.Lstat(gitDir); err != nil {
		gitDir = ts.MkAbs(repo) // a git directory itself: a bare repository
	}
	state := gitFiles(ts, gitDir)
	compare(ts, args[0], args[1]+".gitstate", state)
}

func gitFiles(ts *testscript.TestScript, gitDir string) map[string]string {
	state := map[string]string{}
	for _, name := range []string{"index", "HEAD", "ORIG_HEAD", "MERGE_HEAD", "MERGE_MSG", "MERGE_MODE",
		"CHERRY_PICK_HEAD", "REVERT_HEAD", "BISECT_LOG", "FETCH_HEAD", "config", "info/exclude",
		"packed-refs", "sequencer", "rebase-merge", "rebase-apply", "hooks"} {
		hashInto(state, gitDir, name, nil)
	}
	notOurs := func(rel string) bool { return !strings.Contains(rel, "refs/checkpoints") }
	hashInto(state, gitDir, "refs", notOurs)
	hashInto(state, gitDir, "logs", notOurs)
	return state
}

// hashInto records the hash of every file under gitDir/name that keep
// accepts (nil accepts all), or "absent".
func hashInto(state map[string]string, gitDir, name string, keep func(string) bool) {
	root := filepath.Join(gitDir, name)
	if _, err := os.Lstat(root); err != nil {
		state[name] = "absent"
		return
	}
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(gitDir, path)
		if keep != nil && !keep(rel) {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			state[rel] = "unreadable"
			return nil
		}
		if rel == "packed-refs" {
			data = []byte(dropLines(string(data), "refs/checkpoints/"))
		}
		state[rel] = digest(data)
		return nil
	})
}

func dropLines(s, sub string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.Contains(l, sub) {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// tree save NAME [DIR] records a manifest of the working tree DIR
// (default .): every path below it except the top .git (a directory, or a
// linked worktree's file), a private store's .git-checkpoint and
// testscript's $WORK/.tmp, with its type, exec
// bit, content or link target, and mtime. "tree check NAME [DIR]" compares
// everything but mtimes; "tree mtime NAME [PATH...]" checks that every file
// except the PATHs listed still has its recorded mtime (a rewind must not
// touch files it does not change).
func tree(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: tree save|check NAME [DIR] | tree mtime NAME [PATH...]")
	}
	dir := "."
	if len(args) > 2 && args[0] != "mtime" {
		dir = args[2]
	}
	root := ts.MkAbs(dir)
	var skip []string
	if root == ts.Getenv("WORK") {
		skip = append(skip, ".tmp") // testscript's TMPDIR, not part of the tree under test
	}
	m, err := Manifest(root, skip...)
	ts.Check(err)
	name := args[1] + ".tree"
	switch args[0] {
	case "save":
		compare(ts, "save", name, m)
	case "check":
		compare(ts, "check", name, WithoutMtime(m))
	case "mtime":
		old := load(ts, name)
		for _, p := range args[2:] {
			delete(old, p)
		}
		for k, v := range old {
			if strings.Contains(v, " mtime=") && m[k] != v {
				ts.Fatalf("%q: was %q, now %q", k, v, m[k])
			}
		}
	default:
		ts.Fatalf("usage: tree save|check NAME [DIR] | tree mtime NAME [PATH...]")
	}
}

// Manifest describes every path below root except the top .git: its type,
// exec bit, content digest and, for files, mtime (see WithoutMtime). Two
// trees are the same, as a checkpoint sees them, when their manifests
// without mtimes are equal. Top-level directories named in skip are left
// out.
func Manifest(root string, skip ...string) (map[string]string, error) {
	m := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			return nil
		}
		switch {
		case (rel == ".git" || rel == ".git-checkpoint") && d.IsDir():
			return filepath.SkipDir
		case rel == ".git":
			return nil // a linked worktree's .git is a file
		case d.IsDir() && slices.Contains(skip, rel):
			return filepath.SkipDir
		}
		fi, err := os.Lstat(path)
		if err != nil {
			return err
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(path)
			m[rel] = "symlink " + target
		case fi.IsDir():
			m[rel] = "dir"
		case !fi.Mode().IsRegular():
			// A FIFO, a socket, a device: its kind alone (reading a
			// FIFO would wait for a writer).
			m[rel] = "special " + fi.Mode().Type().String()
		default:
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			kind := "file"
			if fi.Mode()&0o111 != 0 {
				kind = "exec"
			}
			m[rel] = fmt.Sprintf("%s %s mtime=%d", kind, digest(data), fi.ModTime().UnixNano())
		}
		return nil
	})
	return m, err
}

// WithoutMtime returns a manifest without the files' mtimes.
func WithoutMtime(m map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		if i := strings.Index(v, " mtime="); i >= 0 {
			v = v[:i]
		}
		out[k] = v
	}
	return out
}

// compare saves state under name in $WORK, or checks it against the saved
// one; for a check without mtimes the saved side drops them too.
func compare(ts *testscript.TestScript, op, name string, state map[string]string) {
	if op == "save" {
		saved(ts)[name] = state
		return
	}
	if diffs := Diff(WithoutMtime(load(ts, name)), state); len(diffs) > 0 {
		ts.Fatalf("%s differs:\n%s", name, strings.Join(diffs, "\n"))
	}
}

// Diff lists, sorted, how manifest now differs from was: a path whose
// entry changed, went or is new.
func Diff(was, now map[string]string) []string {
	var diffs []string
	for k, v := range was {
		if now[k] != v {
			diffs = append(diffs, fmt.Sprintf("%q: was %q, now %q", k, v, now[k]))
		}
	}
	for k, v := range now {
		if _, ok := was[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("%q: new, %q", k, v))
		}
	}
	slices.Sort(diffs)
	return diffs
}

// stateKey finds, in the script's values, the states saved by name. They
// stay in memory so they never appear in the tree being compared.
type stateKey struct{}

func saved(ts *testscript.TestScript) map[string]map[string]string {
	return ts.Value(stateKey{}).(map[string]map[string]string)
}

func load(ts *testscript.TestScript, name string) map[string]string {
	m, ok := saved(ts)[name]
	if !ok {
		ts.Fatalf("nothing saved as %s", name)
	}
	return maps.Clone(m)
}

// grab NAME REGEXP sets the variable NAME to the first submatch of REGEXP
// (multi-line mode) in the last command's stdout, so that a later command
// can use a value an earlier one printed: a plan id, a commit.
func grab(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: grab NAME REGEXP")
	}
	re, err := regexp.Compile("(?m)" + args[1])
	ts.Check(err)
	m := re.FindStringSubmatch(ts.ReadFile("stdout"))
	if len(m) < 2 {
		ts.Fatalf("grab %s: no submatch of %s in stdout", args[0], args[1])
	}
	ts.Setenv(args[0], m[1])
}

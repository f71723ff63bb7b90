package checkpoint_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/agenttest"
)

// call is one system call a traced run made, in the order they ended.
type call struct {
	pid, name, args string
}

// fdPath returns the path strace -y printed for the fd of argument n
// (0-based), or "".
func (c call) fdPath(n int) string {
	args := splitArgs(c.args)
	if n >= len(args) {
		return ""
	}
	if m := fdArg.FindStringSubmatch(args[n]); m != nil {
		return m[1]
	}
	return ""
}

// str returns string argument n, unquoted as far as the tests need, or "".
func (c call) str(n int) string {
	args := splitArgs(c.args)
	if n >= len(args) {
		return ""
	}
	return strings.Trim(args[n], `"`)
}

var (
	fdArg      = regexp.MustCompile(`^-?\d+<(.*)>$`)
	callLine   = regexp.MustCompile(`^(\d+)\s+(\w+)\((.*)\)\s+=\s+(-?\d+|\?)`)
	unfinished = regexp.MustCompile(`^(\d+)\s+(\w+)\((.*)\s+<unfinished \.\.\.>$`)
	resumed    = regexp.MustCompile(`^(\d+)\s+<\.\.\. (\w+) resumed>(.*)\)\s+=\s+(-?\d+|\?)`)
)

// splitArgs splits a call's arguments at top-level commas (not inside
// quotes, brackets or an fd's <path>).
func splitArgs(s string) []string {
	var out []string
	depth, quoted, start := 0, false, 0
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case quoted && ch == '\\':
			i++
		case ch == '"':
			quoted = !quoted
		case quoted:
		case ch == '<' || ch == '[' || ch == '{':
			depth++
		case ch == '>' || ch == ']' || ch == '}':
			depth--
		case ch == ',' && depth == 0:
			out = append(out, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// traced runs a command under strace, following every process it starts,
// and returns the calls that succeeded. It skips the test when strace is
// missing or may not trace (no ptrace in a container).
func traced(t *testing.T, dir string, env []string, args ...string) []call {
	t.Helper()
	if _, err := exec.LookPath("strace"); err != nil {
		agenttest.Missing(t, "strace is not installed, so the order of system calls cannot be checked (.ci/run installs it)")
	}
	if out, err := exec.Command("strace", "-o", os.DevNull, "true").CombinedOutput(); err != nil {
		t.Skipf("strace cannot trace here (ptrace not allowed?): %v\n%s", err, out)
	}
	out := filepath.Join(t.TempDir(), "trace")
	must(t, 0, dir, env, "strace", append([]string{"-f", "-y", "-qq", "-s", "256", "-o", out,
		"-e", "trace=syncfs,fsync,fdatasync,rename,renameat,renameat2,link,linkat,unlink,unlinkat,openat,write,mkdir,mkdirat"}, args...)...)
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var calls []call
	pending := map[string]string{} // pid: arguments of an unfinished call
	for _, l := range strings.Split(string(data), "\n") {
		var m []string
		if m = unfinished.FindStringSubmatch(l); m != nil {
			pending[m[1]] = m[3]
			continue
		}
		if m = resumed.FindStringSubmatch(l); m != nil {
			m[3] = pending[m[1]] + m[3]
		} else if m = callLine.FindStringSubmatch(l); m == nil {
			continue
		}
		if strings.HasPrefix(m[4], "-") {
			continue // failed: it changed nothing
		}
		calls = append(calls, call{pid: m[1], name: m[2], args: m[3]})
	}
	return calls
}

// find returns the index of the first call at or after from that match
// says is wanted, or -1.
func find(calls []call, from int, match func(call) bool) int {
	for i := max(from, 0); i < len(calls); i++ {
		if match(calls[i]) {
			return i
		}
	}
	return -1
}

func isRename(c call) bool {
	return c.name == "rename" || c.name == "renameat" || c.name == "renameat2"
}

// renameTo returns where a rename put its file: the directory (from its
// fd, when it has one) and the name.
func renameTo(c call) (dir, name string) {
	if c.name == "rename" {
		p := c.str(1)
		return filepath.Dir(p), filepath.Base(p)
	}
	return c.fdPath(2), c.str(3)
}

// renameFrom returns the path a rename took its file from.
func renameFrom(c call) string {
	if c.name == "rename" {
		return c.str(0)
	}
	if d := c.fdPath(0); d != "" {
		return filepath.Join(d, c.str(1))
	}
	return c.str(1)
}

func isSync(c call) bool { return c.name == "fsync" || c.name == "fdatasync" }

// journalWrite matches the write of a journal line of the given type.
func journalWrite(typ string) func(call) bool {
	return func(c call) bool {
		return c.name == "write" && strings.HasSuffix(c.fdPath(0), "/journal.jsonl") &&
			strings.Contains(c.args, `{\"type\":\"`+typ+`\"`)
	}
}

func journalSync(c call) bool { return isSync(c) && strings.HasSuffix(c.fdPath(0), "/journal.jsonl") }

// refThenJournal checks that a checkpoint's ref, and the objects it
// names, reach the disk before the journal line that records it, and that
// line before the command goes on: the rename of the ref's lock file into
// place, an fsync of every directory of objects/ and refs/ whose entries
// changed (or a syncfs), the line, its sync. It returns the index of that
// sync.
func refThenJournal(t *testing.T, calls []call, from int, ref string) int {
	t.Helper()
	r := find(calls, from, func(c call) bool {
		return isRename(c) && strings.HasSuffix(renameFrom(c), ref+".lock")
	})
	if r < 0 {
		t.Fatalf("no rename of %s.lock into place", ref)
	}
	w := find(calls, r, journalWrite("checkpoint"))
	if w < 0 {
		t.Fatalf("no journal line after the ref %s", ref)
	}
	gitDir, _, _ := strings.Cut(renameFrom(calls[r]), "/refs/")
	synced := namesSynced(t, calls, from, w, gitDir)
	var late []string
	for d, s := range synced {
		if s < 0 {
			late = append(late, d)
		}
	}
	if len(late) > 0 {
		slices.Sort(late)
		t.Fatalf("the journal line of %s (call %d) is written before these directories are synced: %q", ref, w, late)
	}
	// The objects before the ref that names them: a crash between the two
	// syncs may leave objects no ref names, never a ref naming objects
	// that are gone.
	refDir := synced[filepath.Dir(filepath.Join(gitDir, ref))]
	for d, s := range synced {
		if strings.HasPrefix(d, gitDir+"/objects") && s > refDir {
			t.Fatalf("%s's directory is synced (call %d) before %s (call %d)", ref, refDir, d, s)
		}
	}
	d := find(calls, w, journalSync)
	if d < 0 {
		t.Fatalf("the journal line of %s is never synced", ref)
	}
	return d
}

// namesSynced returns the directories under gitDir's objects/ and refs/
// whose entries the calls in [from, to) changed (a file renamed or linked
// in, a directory made), each with the call that made them durable after
// that and before call to (an fsync of the directory or a syncfs), or -1.
// It fails the test when none changed: a check of nothing.
func namesSynced(t *testing.T, calls []call, from, to int, gitDir string) map[string]int {
	t.Helper()
	changed := map[string]int{} // directory: its last change
	for i := from; i < to; i++ {
		if d := entryChanged(calls[i]); strings.HasPrefix(d, gitDir+"/objects") || strings.HasPrefix(d, gitDir+"/refs") {
			changed[d] = i
		}
	}
	if len(changed) == 0 {
		t.Fatalf("no directory under %s/objects or refs changed before call %d: the trace shows none of the names", gitDir, to)
	}
	synced := map[string]int{}
	for d, last := range changed {
		s := find(calls, last, func(c call) bool { return isSync(c) && c.fdPath(0) == d || c.name == "syncfs" })
		if s > to {
			s = -1
		}
		synced[d] = s
	}
	return synced
}

// entryChanged returns the directory in which c made a name (a rename, a
// link, a new directory), or "".
func entryChanged(c call) string {
	at := func(dirArg, pathArg int) string {
		p := c.str(pathArg)
		if filepath.IsAbs(p) {
			return filepath.Dir(p)
		}
		return filepath.Dir(filepath.Join(c.fdPath(dirArg), p))
	}
	switch c.name {
	case "rename", "link":
		return filepath.Dir(c.str(1))
	case "mkdir":
		return filepath.Dir(c.str(0))
	case "renameat", "renameat2", "linkat":
		return at(2, 3)
	case "mkdirat":
		return at(0, 1)
	}
	return ""
}

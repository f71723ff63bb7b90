package git

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ObjectPath is one object of `git rev-list --objects` and the path by
// which it was first reached ("" for a commit or a root tree).
type ObjectPath struct{ OID, Path string }

// NewObjects lists the objects reachable from have (commits or trees)
// and from none of not (commits), each once, with the path git first met
// it at: what a push of have to a remote holding not would send. Each of
// not is given as its tree too: rev-list leaves out what a negative
// commit holds only from positive commits, never from positive trees.
// The ids go on
// stdin (--stdin), so that thousands of refs never meet the argument
// limit. rev-list has no -z in the git versions supported: a path holding
// a newline continues on the next line, which is told apart by not
// starting with an object id and a space.
func (r *Runner) NewObjects(ctx context.Context, have, not []string) ([]ObjectPath, error) {
	var in strings.Builder
	for _, h := range have {
		in.WriteString(h + "\n")
	}
	for _, n := range not {
		in.WriteString("^" + n + "\n^" + n + "^{tree}\n")
	}
	out, err := r.Run(ctx, Cmd{Args: []string{"rev-list", "--objects", "--stdin"}, Stdin: []byte(in.String())})
	if err != nil {
		return nil, err
	}
	var objs []ObjectPath
	for _, line := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
		oid, path, _ := strings.Cut(line, " ")
		if line == "" && len(objs) == 0 {
			continue
		}
		if !isOID(oid) {
			if len(objs) == 0 {
				return nil, fmt.Errorf("git rev-list --objects: unexpected line %q", line)
			}
			objs[len(objs)-1].Path += "\n" + line
			continue
		}
		objs = append(objs, ObjectPath{OID: oid, Path: path})
	}
	return objs, nil
}

// isOID reports a full object id in hex (SHA-1 or SHA-256).
func isOID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// TreeWithout writes tree minus paths (files, or directories with all
// below them) and returns it, through a temporary index in tmpDir that
// is removed afterwards: read-tree, then rm --cached of each path as a
// literal pathspec from the top, which never looks at the working tree.
func (r *Runner) TreeWithout(ctx context.Context, tmpDir, tree string, paths []string) (string, error) {
	f, err := os.CreateTemp(tmpDir, "withhold-index-")
	if err != nil {
		return "", err
	}
	index := f.Name()
	f.Close()
	os.Remove(index) // git writes it anew; an empty file is no index
	defer os.Remove(index)
	defer os.Remove(index + ".lock")
	if _, err := r.Run(ctx, Cmd{Args: []string{"read-tree", tree}, Index: index}); err != nil {
		return "", err
	}
	var specs strings.Builder
	for _, p := range paths {
		specs.WriteString(":(top,literal)" + filepath.ToSlash(p) + "\x00")
	}
	if _, err := r.Run(ctx, Cmd{Args: []string{"rm", "--cached", "-r", "-q", "--ignore-unmatch", "--pathspec-from-file=-", "--pathspec-file-nul"},
		Stdin: []byte(specs.String()), Index: index}); err != nil {
		return "", err
	}
	return r.WriteTree(ctx, index)
}

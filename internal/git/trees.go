package git

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/gitformat"
)

// ReadTrees returns the bodies of the trees at dirs (paths from the top;
// "" is root itself) in the tree root, read by one `git cat-file --batch`.
// A directory root does not hold as a tree (absent, or a file or a
// submodule there) has no body in the answer, nor has root when it is
// missing.
//
// It asks for the trees by id, a level at a time, reading each answer
// before asking for the next level, instead of asking for "root:dir":
// git resolves such a name by reading every tree from the root down, so a
// hundred directories under one parent of 5,000 entries read and inflate
// that parent a hundred times, where asking by id reads it once.
func (r *Runner) ReadTrees(ctx context.Context, root string, dirs []string) (map[string][]byte, error) {
	byDepth := map[int][]string{}
	deepest := 0
	for _, d := range dirs {
		if d == "" {
			continue
		}
		n := strings.Count(d, "/") + 1
		byDepth[n] = append(byDepth[n], d)
		deepest = max(deepest, n)
	}
	p, err := r.startBatch(ctx, false)
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	werr := readLevels(p.in, p.out, root, byDepth, deepest, out, r.Trees)
	if err := p.close(); err != nil {
		return nil, err
	}
	if werr != nil {
		return nil, fmt.Errorf("git cat-file --batch: %w", werr)
	}
	return out, nil
}

// readLevels asks for root, then for each level of byDepth the trees
// whose parents were read, and puts each tree's body in out and in held.
func readLevels(w io.Writer, rd *bufio.Reader, root string, byDepth map[int][]string, deepest int, out map[string][]byte, held *Trees) error {
	idLen := len(root) / 2
	level := []string{""}
	ids := []string{root}
	for depth := 0; ; depth++ {
		if len(ids) > 0 {
			errc := make(chan error, 1)
			go func() {
				_, err := io.WriteString(w, strings.Join(ids, "\n")+"\n")
				errc <- err
			}()
			for i, id := range ids {
				body, isTree, err := readAnswer(rd, id)
				if err != nil {
					return err
				}
				if isTree {
					out[level[i]] = body
					held.Keep(id, body)
				}
			}
			if err := <-errc; err != nil {
				return err
			}
		}
		if depth == deepest {
			return nil
		}
		level, ids = level[:0:0], ids[:0:0]
		children := map[string]map[string]string{}
		for _, d := range byDepth[depth+1] {
			parent := path.Dir(d)
			if parent == "." {
				parent = ""
			}
			body, ok := out[parent]
			if !ok {
				continue
			}
			if children[parent] == nil {
				children[parent] = gitformat.Subtrees(body, idLen)
			}
			if id, ok := children[parent][path.Base(d)]; ok {
				level, ids = append(level, d), append(ids, id)
			}
		}
	}
}

// readAnswer reads cat-file's answer to a request for id: the body, and
// whether it is a tree.
func readAnswer(rd *bufio.Reader, id string) ([]byte, bool, error) {
	line, err := rd.ReadString('\n')
	if err != nil {
		return nil, false, err
	}
	f := strings.Fields(line)
	if len(f) == 2 && f[0] == id && f[1] == "missing" {
		return nil, false, nil
	}
	if len(f) != 3 || f[0] != id {
		return nil, false, fmt.Errorf("unexpected answer %q to %s", line, id)
	}
	size, err := strconv.Atoi(f[2])
	if err != nil || size < 0 {
		return nil, false, fmt.Errorf("unexpected answer %q to %s", line, id)
	}
	body := make([]byte, size+1) // and the newline after it
	if _, err := io.ReadFull(rd, body); err != nil {
		return nil, false, err
	}
	return body[:size], f[1] == "tree", nil
}

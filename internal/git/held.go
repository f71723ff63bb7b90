package git

import (
	"context"
	"io"
	"sync"

	"github.com/git-checkpoint/git-checkpoint/internal/gitformat"
)

// Trees holds the bodies of the tree objects a command has read from git
// or written to it, by id. A rewind reads the base's trees along every
// changed path and writes the safety checkpoint's new trees, then
// compares that checkpoint with its target and with the windows of the
// journal: when the trees compared are held, DiffTree walks them here
// instead of starting a `git diff-tree` that would read and inflate them
// again from the repository's pack (docs/speed.md). Safe for concurrent use; a nil *Trees holds nothing.
type Trees struct {
	mu     sync.Mutex
	bodies map[string][]byte
}

// NewTrees returns an empty Trees.
func NewTrees() *Trees { return &Trees{bodies: map[string][]byte{}} }

// Keep remembers body as the tree id. The caller must not change body.
func (t *Trees) Keep(id string, body []byte) {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.bodies[id] = body
	t.mu.Unlock()
}

// Body returns the body of the tree id, if held.
func (t *Trees) Body(id string) ([]byte, bool) {
	if t == nil {
		return nil, false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	b, ok := t.bodies[id]
	return b, ok
}

// walkable reports whether diffHeld compares p: a tree of it is held,
// the other then read from git where the two differ (treeReader; the
// empty tree needs no reading).
func (t *Trees) walkable(p TreePair) bool {
	return t.Has(p.From) || t.Has(p.To)
}

// Has reports whether the tree id is held.
func (t *Trees) Has(id string) bool {
	_, ok := t.Body(id)
	return ok
}

// treeReader answers for tree bodies from held trees, asking one `git
// cat-file --batch`, started on the first miss, for the others.
type treeReader struct {
	r     *Runner
	ctx   context.Context
	proc  *batchProc
	trees *Trees
}

// bodies returns the body of each id, in order. ok is false when one is
// not a tree git has, or git could not be asked.
func (tr *treeReader) bodies(ids []string) (out [][]byte, ok bool) {
	out = make([][]byte, len(ids))
	var missing []int
	for i, id := range ids {
		if b, held := tr.trees.Body(id); held {
			out[i] = b
		} else if id == gitformat.EmptyTree(len(id)) {
			out[i] = []byte{}
		} else {
			missing = append(missing, i)
		}
	}
	if len(missing) == 0 {
		return out, true
	}
	if tr.proc == nil {
		var err error
		// Every tree a command wrote, aside or not, it holds: a miss is
		// an older tree.
		if tr.proc, err = tr.r.startBatch(tr.ctx, true); err != nil {
			return nil, false
		}
	}
	ask := make([]string, len(missing))
	for k, i := range missing {
		ask[k] = ids[i]
	}
	errc := make(chan error, 1)
	go func() { _, err := io.WriteString(tr.proc.in, joinLines(ask)); errc <- err }()
	ok = true
	for _, i := range missing {
		body, isTree, err := readAnswer(tr.proc.out, ids[i])
		if err != nil || !isTree {
			ok = false
			break
		}
		tr.trees.Keep(ids[i], body)
		out[i] = body
	}
	if !ok {
		tr.proc.in.Close() // unblocks the writer; close drains the rest
	}
	return out, <-errc == nil && ok
}

func (tr *treeReader) close() error {
	if tr.proc == nil {
		return nil
	}
	return tr.proc.close()
}

func joinLines(ids []string) string {
	n := 0
	for _, id := range ids {
		n += len(id) + 1
	}
	b := make([]byte, 0, n)
	for _, id := range ids {
		b = append(append(b, id...), '\n')
	}
	return string(b)
}

package session

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/agenttest"
	"github.com/git-checkpoint/git-checkpoint/internal/bench"
)

// plan is one scripted session: what the fake model says and what the
// person types, with counts for the report.
type plan struct {
	script  agenttest.Script
	prompts []string // one a turn
	tools   map[string]int
	calls   int
	// replies is how many model replies the session gets: its steps,
	// each turn's closing text included. A real model takes seconds over
	// each; the fake none.
	replies  int
	parallel int // replies that make more than one call
	// lastWrite is a file the last turn writes, which must exist after
	// the session.
	lastWrite string
}

// turnShape is the order a turn's calls come in, as groups made in one
// reply: two reads, the edits of the two files read, a shell command
// that appends to one file and deletes another, two new files, then
// again. A turn of k calls takes the first k; the Reads come before the
// Edits, since Claude Code edits only a file the session has read.
var turnShape = [][]string{{"Read", "Read"}, {"Edit", "Edit"}, {"Bash"}, {"Write", "Write"}, {"Read"}, {"Edit"}, {"Bash"}}

// newPlan scripts a session of turns turns and calls tool calls, spread
// evenly (the first calls%turns turns one more), on tree in dir with its
// files files. round makes every write new, so that each session stores
// new content as a real one does.
func newPlan(tree *bench.Tree, dir string, files, turns, calls, round int) *plan {
	p := &plan{tools: map[string]int{}, calls: calls}
	picker := newPicker(tree, files)
	for tn := 1; tn <= turns; tn++ {
		k := calls / turns
		if tn <= calls%turns {
			k++
		}
		p.prompts = append(p.prompts, fmt.Sprintf("TURN-%d: change the files", tn))
		var read []string // the files this turn read, for its edits
		for g := 0; k > 0; g++ {
			group := turnShape[g%len(turnShape)]
			if len(group) > k {
				group = group[:k]
			}
			k -= len(group)
			var step []agenttest.Call
			for j, kind := range group {
				p.tools[kind]++
				switch kind {
				case "Read":
					rel := picker.next()
					read = append(read, rel)
					step = append(step, agenttest.ClaudeRead(filepath.Join(dir, rel)))
				case "Edit":
					rel := read[0]
					read = read[1:]
					old := firstLine(rel)
					step = append(step, agenttest.ClaudeEdit(filepath.Join(dir, rel), old,
						fmt.Sprintf("%s, edited in round %d turn %d", old, round, tn)))
				case "Write":
					p.lastWrite = filepath.Join(dir, "agent", fmt.Sprintf("r%d-t%d-g%d-w%d.txt", round, tn, g, j))
					step = append(step, agenttest.ClaudeWrite(p.lastWrite, strings.Repeat(fmt.Sprintf("written in round %d turn %d\n", round, tn), 40)))
				case "Bash":
					step = append(step, agenttest.ClaudeBash(fmt.Sprintf(
						"printf 'round %d turn %d\\n' >> %s && rm %s && mkdir -p agent && echo made > agent/r%d-t%d-g%d.txt",
						round, tn, filepath.ToSlash(picker.next()), filepath.ToSlash(picker.next()), round, tn, g)))
				}
			}
			p.script.Steps = append(p.script.Steps, agenttest.Do(step...))
			if len(step) > 1 {
				p.parallel++
			}
		}
		p.script.Steps = append(p.script.Steps, agenttest.Say(fmt.Sprintf("TURN-%d-DONE", tn)))
	}
	p.replies = len(p.script.Steps)
	p.script.Final = "NOTHING-MORE"
	return p
}

// firstLine is the first line of a file of the tree as built ("// file
// N"), which occurs once in it: what an Edit replaces.
func firstLine(rel string) string {
	base := strings.TrimSuffix(filepath.Base(rel), ".txt")
	var n int
	fmt.Sscanf(base, "f%d", &n)
	return fmt.Sprintf("// file %d", n)
}

// picker hands out tracked files of the tree spread across it, each once
// a session: a file a command deleted is never read again.
type picker struct {
	tree  *bench.Tree
	files int
	g     int
	used  map[int]bool
}

func newPicker(tree *bench.Tree, files int) *picker {
	return &picker{tree: tree, files: files, used: map[int]bool{}}
}

// next is the path, from the top of the tree, of a tracked file not yet
// handed out. 7,919 is a prime, so the strides visit every file before
// one repeats.
func (p *picker) next() string {
	for {
		i := (p.g*7919 + 13) % p.files
		p.g++
		if path, tracked := p.tree.File(i); tracked && !p.used[i] {
			p.used[i] = true
			return path
		}
	}
}

// Package complete answers a shell's question "what can come next on this
// command line?" for git-checkpoint and git-rewind, from the commands'
// kong grammar itself, so that completion cannot drift from what the
// commands accept; and it holds the scripts that connect bash, zsh and
// fish to it (git checkpoint completion SHELL).
//
// The scripts call `git checkpoint __complete PROGRAM WORD... CURRENT`
// and read one candidate a line, "WORD<TAB>DESCRIPTION", then directive
// lines that start with a colon: ":files" when file names fit where the
// cursor is (a path after --, a command to run), which the shell then
// offers itself.
package complete

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/alecthomas/kong"
)

// Word is the hidden first argument of git-checkpoint that asks for
// completion. It is no command of the grammar, so help never shows it.
const Word = "__complete"

// Candidate is one word the shell may offer, with what it means, for the
// shells that show descriptions (zsh, fish).
type Candidate struct {
	Word, About string
}

// Answer is what may come next: candidates, and whether file names fit.
type Answer struct {
	Candidates []Candidate
	Files      bool
}

// Lister lists the words that depend on the repository, for the kinds a
// grammar field names in its `complete:"KIND"` tag: "checkpoint" (ids a
// checkpoint argument takes), "turn" and "session". It is called only
// when such a word is wanted, so completing a flag or a command runs no
// git at all.
type Lister func(kind string) []Candidate

// Complete answers for root's grammar, after args: the words typed after
// the program's name, the last being the word under the cursor ("" when
// the cursor is after a space).
func Complete(root *kong.Node, args []string, list Lister) Answer {
	if len(args) == 0 {
		args = []string{""}
	}
	cur := args[len(args)-1]
	st := walk(root, args[:len(args)-1])
	switch {
	case st.rest:
		return Answer{Files: true}
	case st.value != nil:
		return values(st.value, "", cur, list)
	case strings.HasPrefix(cur, "--") && strings.Contains(cur, "="):
		name, partial, _ := strings.Cut(cur[2:], "=")
		if f := findFlag(st.node, func(f *kong.Flag) bool { return f.Name == name }); f != nil && !f.IsBool() {
			return values(f.Value, "--"+name+"=", partial, list)
		}
		return Answer{}
	case strings.HasPrefix(cur, "-"):
		return Answer{Candidates: flags(st.node, cur)}
	}
	var a Answer
	if st.pos == 0 {
		for _, c := range st.node.Children {
			if c.Type == kong.CommandNode && !c.Hidden && strings.HasPrefix(c.Name, cur) {
				a.Candidates = append(a.Candidates, Candidate{c.Name, c.Help})
			}
		}
	}
	if p := positional(st.node, st.pos); p != nil {
		more := values(p, "", cur, list)
		a.Candidates = append(a.Candidates, more.Candidates...)
		a.Files = more.Files
	}
	return a
}

// state is where a command line's words have led: the command, how many
// of its arguments are given, a flag that waits for its value, and
// whether the rest is not ours to complete (paths after --, the command
// line of a program that run or bisect runs).
type state struct {
	node  *kong.Node
	pos   int
	value *kong.Value
	rest  bool
}

// walk follows words through the grammar as kong's parser would.
func walk(root *kong.Node, words []string) state {
	st := state{node: root}
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case st.rest:
		case w == "--":
			st.rest = true
		case strings.HasPrefix(w, "--"):
			name, _, inline := strings.Cut(w[2:], "=")
			f := findFlag(st.node, func(f *kong.Flag) bool { return f.Name == name })
			if f != nil && !f.IsBool() && !inline {
				i = st.takes(f, i, len(words))
			}
		case strings.HasPrefix(w, "-") && len(w) > 1:
			// -qn N: bundled short flags, the last of which may take the
			// next word as its value (or the rest of this one: -n5).
			for k, r := range w[1:] {
				f := findFlag(st.node, func(f *kong.Flag) bool { return f.Short == r })
				if f != nil && !f.IsBool() {
					if k == len(w)-2 {
						i = st.takes(f, i, len(words))
					}
					break
				}
			}
		default:
			if c := child(st.node, w); c != nil && st.pos == 0 {
				st.node = c
				continue
			}
			if p := positional(st.node, st.pos); p != nil && p.PassthroughMode != kong.PassThroughModeNone {
				st.rest = true
			}
			st.pos++
		}
	}
	return st
}

// takes notes that flag f, word i of n, takes the next word as its value:
// the word under the cursor when it is the last, which is then f's to
// complete. It returns the index of the value.
func (st *state) takes(f *kong.Flag, i, n int) int {
	if i+1 == n {
		st.value = f.Value
	}
	return i + 1
}

// child is node's command named name.
func child(node *kong.Node, name string) *kong.Node {
	for _, c := range node.Children {
		if c.Type == kong.CommandNode && (c.Name == name || slices.Contains(c.Aliases, name)) {
			return c
		}
	}
	return nil
}

// positional is the argument at index pos of node, the last one standing
// for all that follow when it takes several.
func positional(node *kong.Node, pos int) *kong.Value {
	args := node.Positional
	if node.DefaultCmd != nil && len(node.Children) > 0 && len(args) == 0 {
		args = node.DefaultCmd.Positional
	}
	switch {
	case pos < len(args):
		return args[pos]
	case len(args) > 0 && args[len(args)-1].IsSlice():
		return args[len(args)-1]
	}
	return nil
}

// scope is node with the commands whose flags it also takes: its parents
// (the options every command takes), and its default command, whose
// flags can be given without naming it (git checkpoint -m LABEL).
func scope(node *kong.Node) []*kong.Node {
	var out []*kong.Node
	if node.DefaultCmd != nil {
		out = append(out, node.DefaultCmd)
	}
	for n := node; n != nil; n = n.Parent {
		out = append(out, n)
	}
	return out
}

func findFlag(node *kong.Node, match func(*kong.Flag) bool) *kong.Flag {
	for _, n := range scope(node) {
		for _, f := range n.Flags {
			if match(f) {
				return f
			}
		}
	}
	return nil
}

// flags are the long flags node takes that start with cur; one that
// takes a value is offered as --name=, ready for it.
func flags(node *kong.Node, cur string) []Candidate {
	var out []Candidate
	for _, n := range scope(node) {
		for _, f := range n.Flags {
			word := "--" + f.Name
			if !f.IsBool() {
				word += "="
			}
			if !f.Hidden && strings.HasPrefix(word, cur) {
				out = append(out, Candidate{word, f.Help})
			}
		}
	}
	return out
}

// values are the words v takes that start with cur, each after prefix.
func values(v *kong.Value, prefix, cur string, list Lister) Answer {
	var all []Candidate
	switch kind := v.Tag.Get("complete"); {
	case v.Enum != "":
		for _, e := range v.EnumSlice() {
			all = append(all, Candidate{Word: e})
		}
	case kind == "file":
		return Answer{Files: true}
	case kind != "":
		all = list(kind)
	}
	var a Answer
	for _, c := range all {
		if strings.HasPrefix(c.Word, cur) {
			a.Candidates = append(a.Candidates, Candidate{prefix + c.Word, c.About})
		}
	}
	return a
}

// Write prints an answer in the scripts' format. Descriptions are one
// line: a tab or a newline in one would end it.
func Write(w io.Writer, a Answer) error {
	var b strings.Builder
	for _, c := range a.Candidates {
		about := strings.Join(strings.Fields(c.About), " ")
		fmt.Fprintf(&b, "%s\t%s\n", c.Word, about)
	}
	if a.Files {
		b.WriteString(":files\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

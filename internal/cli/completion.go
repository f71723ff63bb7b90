package cli

import (
	"context"
	"io"

	"github.com/git-checkpoint/git-checkpoint/internal/complete"
	"github.com/git-checkpoint/git-checkpoint/internal/turns"
)

type completeCmd struct {
	Shell string `arg:"" enum:"bash,zsh,fish" help:"bash, zsh or fish."`
}

func (c *completeCmd) Help() string {
	return `Prints the completion script for a shell. It works inside git's own
completion: 'git checkpoint <TAB>' and 'git rewind <TAB>' complete commands,
flags and their values, and checkpoint, turn and session ids (with their
labels and prompts in zsh and fish). bash: eval "$(git checkpoint completion
bash)" in ~/.bashrc. zsh: source <(git checkpoint completion zsh) in ~/.zshrc,
after compinit. fish: git checkpoint completion fish | source in config.fish.`
}

func (c *completeCmd) Run(sys *IO) error {
	script, _ := complete.Script(c.Shell) // the grammar's enum allows only those
	_, err := sys.Stdout.Write(script)
	return err
}

// completeWords answers a completion script: args are the program
// ("checkpoint" or "rewind") and the words after it, the last being the
// one under the cursor. It always exits 0 and prints no error: a shell
// has nowhere to show one, and a repository it cannot read only means no
// ids are offered.
func completeWords(args []string, sys *IO) int {
	if len(args) == 0 {
		return 0
	}
	var g Globals
	grammar, name, help := any(&checkpointCLI{}), "git checkpoint", checkpointHelp
	if args[0] == "rewind" {
		grammar, name, help = &rewindCLI{}, "git rewind", rewindHelp
	}
	parser, err := newParser(name, grammar, sys, help)
	if err != nil {
		return 0
	}
	quiet := *sys
	quiet.Stderr = io.Discard
	lister := func(kind string) []complete.Candidate {
		return idWords(&quiet, &g, kind)
	}
	complete.Write(sys.Stdout, complete.Complete(parser.Model.Node, args[1:], lister))
	return 0
}

// idWords lists the ids of kind from this tree's journal and refs: the
// journal is read as it is, never repaired (completion writes nothing and
// takes no lock), and the tree is never scanned.
func idWords(sys *IO, g *Globals, kind string) []complete.Candidate {
	ctx := context.Background()
	s, err := open(ctx, sys, g)
	if err != nil {
		return nil
	}
	j, err := s.Store.Journal()
	if err != nil {
		return nil
	}
	var names []turns.Name
	switch kind {
	case "checkpoint":
		refs, err := s.Store.Refs(ctx)
		if err != nil {
			return nil
		}
		names = turns.CheckpointNames(j, refs)
	case "turn":
		names = turns.TurnNames(j)
	case "session":
		names = turns.SessionNames(j)
	}
	out := make([]complete.Candidate, len(names))
	for i, n := range names {
		out[i] = complete.Candidate{Word: n.ID, About: n.About}
	}
	return out
}

package cli

import (
	"context"
	"os"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/remote"
)

const pushHelp = `Publish this working tree's kept checkpoints and their records (turns,
prompts, sessions) to REMOTE, under refs/checkpoints/stores/<store-id>/, which
no plain git push or fetch carries. Only what the remote lacks is sent; the
push is atomic, and each ref is a compare-and-swap, so another store's refs,
or another push of this one, are never overwritten. REMOTE defaults to the
current branch's upstream remote, else origin.`

type pushCmd struct {
	Remote string `arg:"" optional:"" help:"The remote (a name or a URL); default: the branch's upstream remote, else origin."`
	DryRun bool   `short:"n" name:"dry-run" help:"List what would be published; send nothing."`
	Prune  bool   `help:"Also remove from REMOTE this store's checkpoints pruned here, and their records."`

	Conversation bool `name:"with-conversation" help:"Also carry the transcripts of the agent sessions (Claude Code's), so that 'git rewind --worktree' elsewhere can resume the conversation."`
}

// Help is the long help of git checkpoint push.
func (c *pushCmd) Help() string { return pushHelp }

type pushDoc struct {
	Remote         string   `json:"remote"`
	Store          string   `json:"store"`
	DryRun         bool     `json:"dry_run"`
	Published      []string `json:"published"`
	Pruned         []string `json:"pruned"`
	Records        int      `json:"records"`
	RecordsChanged bool     `json:"records_changed"`
	Conversations  int      `json:"conversations"`
	UpToDate       bool     `json:"up_to_date"`
}

func (c *pushCmd) Run(ctx context.Context, sys *IO, g *Globals) error {
	s, err := open(ctx, sys, g)
	if err != nil {
		return err
	}
	name, err := s.remoteName(ctx, c.Remote)
	if err != nil {
		return err
	}
	j, refs, err := s.journal(ctx)
	if err != nil {
		return err
	}
	// The host name labels the store for the people who fetch it; a
	// machine without one publishes none.
	host, _ := os.Hostname()
	p := &remote.Pusher{Git: s.git, Store: s.store, Host: host}
	res, err := p.Push(ctx, j, refs, name, remote.PushOptions{DryRun: c.DryRun, Prune: c.Prune, Conversation: c.Conversation})
	if err != nil {
		return err
	}
	pruned := numbered(res.Pruned)
	doc := pushDoc{Remote: res.Remote, Store: res.Store, DryRun: res.DryRun, Published: ids(res.Published), Pruned: ids(pruned),
		Records: res.Records, RecordsChanged: res.RecordsChanged, Conversations: res.Conversations, UpToDate: res.UpToDate()}
	if s.out.json {
		return s.out.JSON(doc)
	}
	if doc.UpToDate {
		s.out.Printf("%s is up to date: store %s, %d %s\n", name, res.Store, res.Records, fault.Plural(res.Records, "checkpoint", "checkpoints"))
		return nil
	}
	verb, recVerb, rmVerb := "published", "updated", "removed"
	if res.DryRun {
		verb, recVerb, rmVerb = "would publish", "would update", "would remove"
	}
	if n := len(res.Published); n > 0 {
		s.out.Printf("%s %d %s to %s: %s\n", verb, n, fault.Plural(n, "checkpoint", "checkpoints"), name, runs(res.Published))
	}
	if n := len(pruned); n > 0 {
		s.out.Printf("%s %d %s pruned here from %s: %s\n", rmVerb, n, fault.Plural(n, "checkpoint", "checkpoints"), name, runs(pruned))
	}
	if res.RecordsChanged {
		s.out.Printf("%s the records of store %s on %s: %d %s\n", recVerb, res.Store, name, res.Records, fault.Plural(res.Records, "checkpoint", "checkpoints"))
	}
	if n := res.Conversations; res.ConversationsChanged {
		s.out.Printf("%s the conversations of store %s on %s: %d %s\n", recVerb, res.Store, name, n, fault.Plural(n, "transcript", "transcripts"))
	}
	return nil
}

// remoteName is the remote a push or fetch talks to: the one named, else
// the current branch's upstream remote, else origin (remote.Default).
func (s *session) remoteName(ctx context.Context, named string) (string, error) {
	if named != "" {
		return named, nil
	}
	return remote.Default(ctx, s.git, s.repo.Branch)
}

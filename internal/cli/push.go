package cli

import (
	"context"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/program"
	"github.com/git-checkpoint/git-checkpoint/internal/remote"
	"github.com/git-checkpoint/git-checkpoint/internal/secrets"
)

const pushHelp = `Publish this working tree's kept checkpoints and their records (turns,
prompts, sessions) to REMOTE, under refs/checkpoints/stores/<store-id>/, which
no plain git push or fetch carries. Only what the remote lacks is sent; the
push is atomic, and each ref is a compare-and-swap, so another store's refs,
or another push of this one, are never overwritten. REMOTE defaults to the
current branch's upstream remote, else origin.

Before anything is sent, the files the remote does not have yet are scanned
for secrets (by git-checkpoint-scan, installed beside git-checkpoint), and a
push that would publish one is refused, naming each file, line and rule:
--withhold PATH leaves the path out of what is pushed, --allow-secret PATH
publishes it anyway. Transcripts carried by --with-conversation are redacted.`

type pushCmd struct {
	Remote string `arg:"" optional:"" help:"The remote (a name or a URL); default: the branch's upstream remote, else origin."`
	DryRun bool   `short:"n" name:"dry-run" help:"List what would be published; send nothing."`
	Prune  bool   `help:"Also remove from REMOTE this store's checkpoints pruned here, and their records."`

	Conversation bool `name:"with-conversation" help:"Also carry the transcripts of the agent sessions (Claude Code's), so that 'git rewind --worktree' elsewhere can resume the conversation."`

	Withhold []string `name:"withhold" placeholder:"PATH" help:"Leave PATH (a file or directory) out of the checkpoints this push publishes; the remote's copies say it was withheld. Repeatable."`
	Allow    []string `name:"allow-secret" placeholder:"PATH" help:"Publish PATH although the secret scan flags it. Repeatable."`
}

// Help is the long help of git checkpoint push.
func (c *pushCmd) Help() string { return pushHelp }

type pushDoc struct {
	Untracked []string        `json:"untracked"`
	Secrets   []remote.Secret `json:"secrets"`
	Refused   []string        `json:"refused"`
	Withheld  []withheldDoc   `json:"withheld"`
	Allowed   []string        `json:"allowed"`
	Redacted  []remote.Secret `json:"redacted"`

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
	j, refs, err := s.Journal(ctx)
	if err != nil {
		return err
	}
	// The host name labels the store for the people who fetch it; a
	// machine without one publishes none.
	host, _ := os.Hostname()
	scanner := program.Beside(secrets.Helper, sys.Getenv("PATH"))
	if scanner == "" {
		return fault.New(fault.NotFoundCommand, "the secret scanner %s is not installed beside git-checkpoint or on PATH", secrets.Helper).
			WithHint("a push scans what it publishes first; install it with git-checkpoint: 'make install', or 'go install github.com/git-checkpoint/git-checkpoint/cmd/...@latest'")
	}
	p := &remote.Pusher{Git: s.Git, Store: s.Store, Host: host}
	res, err := p.Push(ctx, j, refs, name, remote.PushOptions{DryRun: c.DryRun, Prune: c.Prune, Conversation: c.Conversation,
		Scanner: secrets.Program{Path: scanner}, Withhold: cleanPaths(c.Withhold), Allow: cleanPaths(c.Allow)})
	if err != nil {
		if fe := fault.As(err); fe != nil && fe.Code == fault.ConflictSecrets && !s.out.json {
			if d, ok := fe.Data.(remote.SecretsData); ok {
				s.out.Printf("secrets in what the push would publish:\n")
				printSecrets(s.out, d.Secrets)
			}
		}
		return err
	}
	pruned := numbered(res.Pruned)
	doc := pushDoc{Remote: res.Remote, Store: res.Store, DryRun: res.DryRun, Published: ids(res.Published), Pruned: ids(pruned),
		Records: res.Records, RecordsChanged: res.RecordsChanged, Conversations: res.Conversations, UpToDate: res.UpToDate(),
		Untracked: nonNil(res.Screen.Untracked), Secrets: nonNil(res.Screen.Secrets), Refused: nonNil(res.Screen.Blocking),
		Allowed: nonNil(res.Screen.Allowed), Redacted: nonNil(res.Redacted), Withheld: withheldDocs(res.Screen.Withheld)}
	if s.out.json {
		return s.out.JSON(doc)
	}
	if res.DryRun {
		defer c.printScreen(s, res)
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
	if !res.DryRun {
		printWithheld(s, res, name)
	}
	return nil
}

// remoteName is the remote a push or fetch talks to: the one named, else
// the current branch's upstream remote, else origin (remote.Default).
func (s *session) remoteName(ctx context.Context, named string) (string, error) {
	if named != "" {
		return named, nil
	}
	return remote.Default(ctx, s.Git, s.Repo.Branch)
}

type withheldDoc struct {
	Checkpoint string   `json:"checkpoint"`
	Paths      []string `json:"paths"`
}

func withheldDocs(w map[int][]string) []withheldDoc {
	out := []withheldDoc{}
	for _, n := range slices.Sorted(maps.Keys(w)) {
		out = append(out, withheldDoc{Checkpoint: "k" + strconv.Itoa(n), Paths: w[n]})
	}
	return out
}

// cleanPaths are paths as the tree names them: "./a/" is "a".
func cleanPaths(ps []string) []string {
	var out []string
	for _, p := range ps {
		out = append(out, path.Clean(filepath.ToSlash(p)))
	}
	return out
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// printSecrets lists findings, one a line: file, line, rule and the
// checkpoints that hold it; never the secret.
func printSecrets(out *printer, ss []remote.Secret) {
	for _, s := range ss {
		where := s.Path
		if s.Line > 0 {
			where += ":" + strconv.Itoa(s.Line)
		}
		in := ""
		if len(s.N) > 0 {
			in = " in " + runs(numbered(s.N))
		}
		out.Printf("  %s %s%s\n", where, s.Rule, in)
	}
}

// printScreen is what a dry run says of the scan: the untracked files the
// push would publish for the first time, and the findings.
func (c *pushCmd) printScreen(s *session, res *remote.PushResult) {
	sc := res.Screen
	if n := len(sc.Untracked); n > 0 {
		s.out.Printf("untracked files new to %s: %d\n", res.Remote, n)
		for _, p := range sc.Untracked {
			s.out.Printf("  %s\n", p)
		}
	}
	if len(sc.Secrets) > 0 {
		files := map[string]bool{}
		for _, x := range sc.Secrets {
			files[x.Path] = true
		}
		verdict := "the push would be refused"
		if len(sc.Blocking) == 0 {
			verdict = "all withheld or allowed"
		}
		s.out.Printf("secrets found: %d in %d %s; %s\n", len(sc.Secrets), len(files), fault.Plural(len(files), "file", "files"), verdict)
		printSecrets(s.out, sc.Secrets)
	}
	if n := len(res.Redacted); n > 0 {
		s.out.Printf("secrets redacted in the transcripts: %d\n", n)
		printSecrets(s.out, res.Redacted)
	}
}

// printWithheld says what a push left out and published anyway.
func printWithheld(s *session, res *remote.PushResult, name string) {
	byPath := map[string][]int{}
	for n, ps := range res.Screen.Withheld {
		for _, p := range ps {
			byPath[p] = append(byPath[p], n)
		}
	}
	if len(byPath) > 0 {
		var parts []string
		var all []int
		for _, p := range slices.Sorted(maps.Keys(byPath)) {
			parts = append(parts, p)
			all = append(all, byPath[p]...)
		}
		slices.Sort(all)
		s.out.Printf("withheld from %s: %s (%s)\n", name, strings.Join(parts, ", "), runs(numbered(slices.Compact(all))))
	}
	if len(res.Screen.Allowed) > 0 {
		var all []int
		for _, x := range res.Screen.Secrets {
			if slices.Contains(res.Screen.Allowed, x.Path) {
				all = append(all, x.N...)
			}
		}
		slices.Sort(all)
		s.out.Printf("published anyway: %s (%s)\n", strings.Join(res.Screen.Allowed, ", "), runs(numbered(slices.Compact(all))))
	}
	if n := len(res.Redacted); n > 0 {
		s.out.Printf("redacted %d %s in the transcripts carried\n", n, fault.Plural(n, "secret", "secrets"))
	}
}

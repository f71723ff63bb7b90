package remote

import (
	"context"
	"errors"
	"io/fs"
	"maps"
	"os"
	"slices"

	"github.com/git-checkpoint/git-checkpoint/internal/agents"
	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/secrets"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// ConversationsRef is the ref of store id's carried transcripts (push
// --with-conversation): a parentless commit whose tree holds one
// <session>.jsonl per agent session.
func ConversationsRef(id string) string { return store.StorePrefix(id) + "conversations" }

// conversationsDate is the date of every conversations commit: the same
// transcripts make the same commit, so a push that has nothing new to
// carry sees that from ls-remote alone.
var conversationsDate = []string{"GIT_AUTHOR_DATE=@0 +0000", "GIT_COMMITTER_DATE=@0 +0000"}

// writeConversations stores, as one commit, the transcripts of the
// sessions the kept checkpoints belong to, each as its newest record
// names it, and returns it with their number ("" when there are none).
// A transcript that is gone from this machine is left out. Each is
// scanned first, and every secret found is replaced by a marker
// (secrets.Redact), which keeps each JSON line JSON, so that the
// conversation still resumes elsewhere; the findings are returned.
func writeConversations(ctx context.Context, g *git.Runner, j *store.Journal, kept map[int]bool, id string, scanner secrets.Scanner) (string, int, []Secret, error) {
	paths := map[string]string{} // session: its transcript
	for _, r := range j.Checkpoints() {
		if kept[r.N] && agents.Carried(r.Agent) && agents.TranscriptName(r.Session) != "" && r.Transcript != "" {
			paths[r.Session] = r.Transcript
		}
	}
	var items []secrets.Item
	for _, session := range slices.Sorted(maps.Keys(paths)) {
		data, err := os.ReadFile(paths[session])
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", 0, nil, fault.Wrap(err, fault.FailedIO, "cannot read the transcript of session %s", session)
		}
		items = append(items, secrets.Item{Name: agents.TranscriptName(session), Data: data})
	}
	if len(items) == 0 {
		return "", 0, nil, nil
	}
	if scanner == nil {
		return "", 0, nil, fault.New(fault.NotFoundCommand, "no secret scanner: transcripts are redacted before they are carried")
	}
	findings, err := scanner.Scan(ctx, slices.Values(items))
	if err != nil {
		return "", 0, nil, fault.Wrap(err, fault.FailedIO, "the secret scan of the transcripts failed").
			WithHint("nothing was pushed; a push carries no transcript it could not scan")
	}
	byItem := map[int][]secrets.Finding{}
	var redacted []Secret
	for _, f := range findings {
		byItem[f.Item] = append(byItem[f.Item], f)
		redacted = append(redacted, Secret{Path: items[f.Item].Name, Line: f.Line, Rule: f.Rule})
	}
	var entries []git.TreeEntry
	for i, it := range items {
		data, err := secrets.Redact(it.Data, byItem[i])
		if err != nil {
			return "", 0, nil, fault.Wrap(err, fault.FailedIO, "cannot redact the transcript %s", it.Name)
		}
		blob, err := g.WriteBlob(ctx, data)
		if err != nil {
			return "", 0, nil, err
		}
		entries = append(entries, git.TreeEntry{Mode: "100644", Type: "blob", OID: blob, Path: it.Name})
	}
	tree, err := g.StoreTree(ctx, entries)
	if err != nil {
		return "", 0, nil, err
	}
	commit, err := g.CommitTree(ctx, git.CommitRequest{Tree: tree, Message: "agent transcripts of store " + id + "\n",
		Env: append(slices.Clone(git.Identity), conversationsDate...)})
	return commit, len(entries), redacted, err
}

// Transcript is the carried transcript of session in this fetched store,
// and false when the store carries none for it (pushed without
// --with-conversation).
func (f *Fetched) Transcript(ctx context.Context, g *git.Runner, session string) ([]byte, bool, error) {
	name := agents.TranscriptName(session)
	if f.ConversationsOID == "" || name == "" {
		return nil, false, nil
	}
	objs, err := g.CatFile(ctx, []string{f.ConversationsOID + ":" + name})
	if err != nil || objs[0].Missing {
		return nil, false, err
	}
	return objs[0].Body, true, nil
}

// Continued is how a fetched checkpoint's conversation goes on here.
type Continued struct {
	// Resume is the command that continues it, run in the directory it
	// was placed for; nil when there is none.
	Resume *agents.Resume
	// Transcript is where its transcript was placed.
	Transcript string
	// Missing says the store has a conversation to resume there but
	// carries no transcript of it (pushed without --with-conversation),
	// or the agent's is not one that travels; Why says which.
	Missing bool
	Why     string
}

// Continue places the transcript of the conversation of fetched
// checkpoint id where its agent looks for it when it runs in dir
// (absolute, symlinks resolved), and returns the command that resumes it
// there, as it was at that checkpoint.
func Continue(ctx context.Context, g *git.Runner, own, id string, env agents.Env, dir string) (*Continued, error) {
	f, r, err := find(ctx, g, own, id)
	if err != nil {
		return nil, err
	}
	resume := agents.ResumeAt(f.Journal(), r)
	switch {
	case resume == nil:
		return &Continued{}, nil
	case !agents.Carried(resume.Agent):
		return &Continued{Missing: true, Why: resume.Agent + " keeps its sessions where no push carries them"}, nil
	}
	data, ok, err := f.Transcript(ctx, g, resume.Session)
	if err != nil {
		return nil, err
	}
	if !ok {
		return &Continued{Missing: true, Why: "its store was pushed without --with-conversation"}, nil
	}
	path, err := agents.PlaceTranscript(env, dir, resume.Session, data)
	if err != nil {
		return &Continued{Missing: true, Why: err.Error()}, nil
	}
	return &Continued{Resume: resume, Transcript: path}, nil
}

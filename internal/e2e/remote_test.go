package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/agenttest"
)

// claudeRemoteStory: two turns of Claude Code on side A, pushed with
// --with-conversation to a bare repository; side B (another clone, another
// HOME, another path) fetches, forks the newest checkpoint into a
// worktree, and the resume command the fork prints, run there as printed,
// is accepted by the real Claude Code: the model sees both of side A's
// turns in its first request. The token the model wrote in turn one is
// in the transcript: the push redacts it there (and publishes the file
// only with --allow-secret), and the redacted transcript still resumes.
func claudeRemoteStory(t *testing.T, tools string) {
	a := newFixture(t, tools)
	a.exits(0, "git", "checkpoint", "install", "claude")
	const token = "ghp_csSWj9DxQSYgDMFMbGBKxN28J4W8Bzld2g0h"
	script := agenttest.Script{Steps: []agenttest.Step{
		agenttest.Do(agenttest.ClaudeWrite(a.path("one.txt"), "turn one\nGITHUB_TOKEN="+token+"\n")),
		agenttest.Say("ONE-DONE"),
		agenttest.Do(agenttest.ClaudeWrite(a.path("two.txt"), "turn two\n")),
		agenttest.Say("TWO-DONE"),
	}}
	srv := agenttest.NewClaudeServer(t, script)
	run := agenttest.Run{Dir: a.dir, Home: a.home, URL: srv.URL, Env: a.env, Prompt: "TURN-ONE: write one.txt"}
	first := agenttest.RunClaude(t, run)
	a.ran(first, srv)
	session := claudeSession(t, first)
	run.Prompt, run.Args = "TURN-TWO: write two.txt", []string{"--resume", session}
	a.ran(agenttest.RunClaude(t, run), srv)
	atA := a.manifest()

	bare := filepath.Join(t.TempDir(), "remote.git")
	a.exits(0, "git", "init", "-q", "--bare", bare)
	a.exits(0, "git", "remote", "add", "origin", bare)
	a.exits(0, "git", "push", "-q", "origin", "HEAD:refs/heads/main")
	// The file with the token is refused, then published knowingly.
	if r := a.exits(5, "git", "checkpoint", "push"); !strings.Contains(r.stderr, "secrets found in 1 file: one.txt") {
		t.Errorf("a push of one.txt was not refused:\n%s", r.stderr)
	}
	// Without --with-conversation no transcript travels.
	if out := a.exits(0, "git", "checkpoint", "push", "--allow-secret", "one.txt").stdout; strings.Contains(out, "conversation") {
		t.Errorf("a plain push carried conversations:\n%s", out)
	}
	if refs := a.exits(0, "git", "--git-dir", bare, "for-each-ref", "--format=%(refname)", "refs/checkpoints/").stdout; strings.Contains(refs, "conversations") || !strings.Contains(refs, "/records") {
		t.Errorf("after a plain push the remote holds:\n%s", refs)
	}
	if out := a.exits(0, "git", "checkpoint", "push", "--with-conversation").stdout; !strings.Contains(out, "conversations of store") || !strings.Contains(out, ": 1 transcript") ||
		!strings.Contains(out, "redacted") {
		t.Errorf("push --with-conversation:\n%s", out)
	}

	if refs := a.exits(0, "git", "--git-dir", bare, "for-each-ref", "--format=%(refname)", "refs/checkpoints/").stdout; !strings.Contains(refs, "/conversations\n") {
		t.Errorf("after push --with-conversation the remote holds:\n%s", refs)
	}

	// Side B: its own HOME, its own path, no trace of side A's session.
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b := &fixture{t: t, dir: filepath.Join(base, "b"), home: t.TempDir(), env: a.env}
	a.exits(0, "git", "clone", "-q", bare, b.dir)
	b.exits(0, "git", "checkpoint", "fetch")
	store := ""
	for _, line := range strings.Split(b.exits(0, "git", "checkpoint", "list", "--remote").stdout, "\n") {
		if id, _, ok := strings.Cut(line, ":k"); ok && store == "" && !strings.Contains(id, " ") {
			store = id
		}
	}
	if store == "" {
		t.Fatalf("list --remote shows no fetched checkpoint")
	}
	var fork struct {
		Worktree, Transcript string
		Resume               *struct{ Agent, Command string }
	}
	there := filepath.Join(base, "there")
	b.exitsJSON(0, &fork, "git", "rewind", store+":@", "--worktree", there, "--json")
	bThere := &fixture{t: t, dir: there, home: b.home, env: a.env}
	bThere.sameTree("the fork of side A's newest checkpoint", atA)
	if fork.Resume == nil {
		t.Fatalf("the fork printed no resume command")
	}
	want := agenttest.ClaudeTranscript(b.home, there, session)
	if fork.Transcript != want {
		t.Errorf("the transcript was placed at %s, want %s, where Claude Code looks for it", fork.Transcript, want)
	}
	placed, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	original, err := os.ReadFile(agenttest.ClaudeTranscript(a.home, a.dir, session))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(original, []byte(token)) {
		t.Fatalf("side A's transcript does not hold the token the model wrote")
	}
	if bytes.Contains(placed, []byte(token)) || !bytes.Contains(placed, []byte("[REDACTED github-pat]")) {
		t.Errorf("the placed transcript is not redacted")
	}
	if got := bytes.Replace(placed, []byte("[REDACTED github-pat]"), []byte(token), -1); !bytes.Equal(got, original) {
		t.Errorf("the placed transcript differs from side A's in more than the token")
	}
	at := claudeLine(t, want, "TWO-DONE")
	if w := "claude --resume " + session + " --resume-session-at " + at + " --fork-session"; fork.Resume.Command != w {
		t.Errorf("the resume command is %q, want %q", fork.Resume.Command, w)
	}

	// The command, run on side B in the fork, as printed (with -p, against
	// a fake model): the model's first request holds side A's two turns.
	cont := agenttest.NewClaudeServer(t, agenttest.Script{Steps: append(make([]agenttest.Step, 4), agenttest.Say("CONTINUED-ON-B"))})
	runB := agenttest.Run{Dir: there, Home: b.home, URL: cont.URL, Env: a.env, Prompt: "ON-B: carry on",
		Args: commandArgs(t, fork.Resume.Command, "claude")}
	res := agenttest.RunClaude(t, runB)
	bThere.ran(res, cont)
	body := firstStep(t, cont, 4)
	for _, s := range []string{"TURN-ONE", "TURN-TWO", "ONE-DONE", "TWO-DONE", "ON-B"} {
		if !strings.Contains(body, s) {
			t.Errorf("the continued conversation's request lacks %q:\n%s", s, shorten(body))
		}
	}
	if !strings.Contains(res.Stdout, "CONTINUED-ON-B") {
		t.Errorf("the continued run did not print the model's reply:\n%s", res)
	}
}

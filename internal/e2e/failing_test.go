package e2e

import (
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/agenttest"
)

// claudeFailingStory: hooks that take no checkpoint still let Claude Code
// run (they exit 0, print nothing), status says they fail, and the next
// prompt's UserPromptSubmit hook shows the person a systemMessage, which
// the real Claude Code accepts and reports.
func claudeFailingStory(t *testing.T, tools string) {
	f := newFixture(t, tools)
	f.exits(0, "git", "checkpoint", "install", "claude")
	f.exits(0, "git", "config", "checkpoint.maxTotalBytes", "1k")
	f.write("build.out", strings.Repeat("x", 4000))
	script := agenttest.Script{Steps: []agenttest.Step{
		agenttest.Say("ONE-DONE"),
		agenttest.Say("TWO-DONE"),
	}}
	srv := agenttest.NewClaudeServer(t, script)
	run := agenttest.Run{Dir: f.dir, Home: f.home, URL: srv.URL, Env: f.env}
	run.Prompt = "ONE"
	first := agenttest.RunClaude(t, run)
	if first.Err != nil {
		t.Fatalf("claude failed with failing hooks: %s", first)
	}
	st := f.exits(0, "git", "checkpoint", "status")
	if !strings.Contains(st.stdout, "hook calls took no checkpoint") {
		t.Fatalf("status does not say the hooks fail:\n%s", st.stdout)
	}
	run.Prompt, run.Args = "TWO", []string{"--resume", claudeSession(t, first)}
	second := agenttest.RunClaude(t, run)
	if second.Err != nil {
		t.Fatalf("claude failed on the hook's systemMessage: %s", second)
	}
	// Claude Code shows a hook's systemMessage as a notice of its own
	// ("UserPromptSubmit says: ..."), which -p's stream carries.
	shown := false
	for _, l := range strings.Split(second.Stdout, "\n") {
		shown = shown || strings.Contains(l, `"subtype":"informational"`) &&
			strings.Contains(l, "UserPromptSubmit says: git-checkpoint: 2 hook calls took no checkpoint")
	}
	if !shown {
		t.Errorf("Claude Code did not show the hook's message:\n%s", second)
	}
}

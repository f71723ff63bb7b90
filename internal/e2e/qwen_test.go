package e2e

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/agenttest"
)

// qwenSettings is a project's .qwen/settings.json before install: the
// person's own settings, with a comment (Qwen Code reads JSON with
// comments), which install and uninstall keep byte for byte. Qwen Code
// itself adds "$version": 4 to a settings file that lacks it, the first
// time it runs: this one has it, as every file Qwen Code has read does.
const qwenSettings = `{
  "$version": 4,
  // the team's model
  "model": {"name": "qwen3-coder-plus"},
  "hooks": {
    "Stop": [{"hooks": [{"type": "command", "command": "true"}]}]
  }
}
`

// qwenStory: Qwen Code 0.24, with the hooks `git checkpoint install qwen`
// merges into .qwen/settings.json, run headless against a fake OpenAI
// Chat Completions server. Qwen Code sends UserPromptSubmit before every
// model request of a turn (with an empty prompt after the first): the
// journal shows one turn start a prompt all the same. --resume adds to
// the session.
func qwenStory(t *testing.T, tools string) {
	hookedStory(t, tools, hookedAgent{
		name:    "qwen",
		install: "updated   .qwen/settings.json\n",
		server:  agenttest.NewChatServer, run: agenttest.RunQwen, session: qwenSession,
		resume: func(s string) []string { return []string{"--resume", s} },
		write:  agenttest.QwenWriteFile, shell: agenttest.QwenShell, writeTool: "write_file", shellTool: "run_shell_command",
		settings: ".qwen/settings.json", settingsText: qwenSettings,
	})
}

// qwenSession returns the session id of Qwen Code's JSON output, an array
// of messages.
func qwenSession(t *testing.T, res *agenttest.Result) string {
	t.Helper()
	var out []struct {
		SessionID string `json:"session_id"`
	}
	if json.Unmarshal([]byte(res.Stdout), &out) != nil || len(out) == 0 || out[0].SessionID == "" {
		t.Fatalf("no session id in Qwen Code's output:\n%s", res)
	}
	return out[0].SessionID
}

// qwenForkStory: a turn that writes a file and starts a subagent, which
// Qwen Code runs in the background: its write, after the main Stop,
// belongs to the person's turn. A rewind to the end of the session's last
// turn prints the fork command, which goes on from that turn in a new
// session holding it, and the fork's model gets the note.
func qwenForkStory(t *testing.T, tools string) {
	f := newFixture(t, tools)
	f.exits(0, "git", "checkpoint", "install", "qwen")
	srv := agenttest.NewChatServer(t, agenttest.Script{Steps: []agenttest.Step{
		agenttest.Do(agenttest.QwenWriteFile(f.path("written.txt"), "written by the agent\n")),
		agenttest.Do(agenttest.QwenAgent("SUBTASK-7: write sub.txt")),
		agenttest.Say("TURN-ONE-DONE"),
	}, Sub: map[string][]agenttest.Step{"SUBTASK-7": {
		agenttest.Do(agenttest.QwenWriteFile(f.path("sub.txt"), "by the subagent\n")),
		agenttest.Say("SUB-DONE"),
	}}})
	run := agenttest.Run{Dir: f.dir, Home: f.home, URL: srv.URL, Env: f.env, Prompt: "TURN-ONE: write and delegate"}
	first := agenttest.RunQwen(t, run)
	f.ran(first, srv)
	session := qwenSession(t, first)
	if got := f.read("sub.txt"); got != "by the subagent\n" {
		t.Fatalf("sub.txt: %q", got)
	}
	// The subagent's write comes before or after the main Stop; either
	// way every record is turn t1's.
	var tools1 []string
	recs := f.journal()
	for _, line := range boundaries(t, recs, session, "qwen") {
		if !strings.Contains(line, " t1") {
			t.Errorf("journal: %q is not turn t1's", line)
		}
		if strings.HasPrefix(line, "tool ") {
			// The background subagent's write, and it alone, may
			// already be in a checkpoint of the main agent (its Stop
			// scans the whole tree) when the write's own hook runs,
			// which then reuses it: either way, the write is turn t1's.
			if line == "tool t1 write_file sub.txt (reused)" {
				line = "tool t1 write_file sub.txt"
			}
			tools1 = append(tools1, line)
		}
	}
	sameLines(t, "tool calls of turn 1", tools1, []string{"tool t1 write_file written.txt", "tool t1 write_file sub.txt"})
	// Reused or not, the subagent's write's checkpoint holds its file.
	held := false
	for _, r := range recs {
		if r.Tool == "write_file" && slices.Contains(r.Paths, "sub.txt") {
			held = true
			if got := f.exits(0, "git", "cat-file", "blob", r.Commit+":sub.txt").stdout; got != "by the subagent\n" {
				t.Errorf("checkpoint %s of the subagent's write holds sub.txt %q", r.ID, got)
			}
		}
	}
	if !held {
		t.Error("no checkpoint records the subagent's write of sub.txt")
	}
	afterTurn1 := f.manifest()

	// after a person's edit, back to the end of the turn: the fork command
	f.write("person.txt", personEdit)
	end := recs[len(recs)-1].ID
	var doc rewindDoc
	f.exitsJSON(0, &doc, "git", "rewind", end, "--yes", "--json", "--outside=overwrite")
	doc.checkResume(t, "qwen", "qwen --resume "+session+" --fork-session")
	f.sameTree("after git rewind "+end, afterTurn1)

	// the fork, headless: a new session whose first request holds turn 1
	// (four replies: the main agent answers the subagent's completion
	// notice too) and the note
	fork := agenttest.NewChatServer(t, agenttest.Script{Steps: append(make([]agenttest.Step, 4), agenttest.Say("FORKED"))})
	run.URL, run.Prompt, run.Args = fork.URL, "AFTER-REWIND: carry on", commandArgs(t, doc.Resume.Command, "qwen")
	second := agenttest.RunQwen(t, run)
	f.ran(second, fork)
	if got := qwenSession(t, second); got == session {
		t.Errorf("the fork is the original session %s", session)
	}
	body := firstStep(t, fork, 4)
	for _, s := range []string{"TURN-ONE-DONE", "AFTER-REWIND", noteFor(end)} {
		if !strings.Contains(body, s) {
			t.Errorf("the fork's first request lacks %q:\n%s", s, shorten(body))
		}
	}
	f.noteTaken()
}

package agenttest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The shell command every agent runs in its scripted turn: it creates,
// deletes and appends to a file, the changes a checkpoint must see that a
// file-editing tool's own record does not.
const shellEdit = "echo new > new.txt && rm gone.txt && echo two >> log.txt"

// scenario is a fresh repository and a hook log outside it.
type scenario struct {
	dir string // the repository
	log string // where hooks append their payloads
}

func newScenario(t *testing.T) scenario {
	dir := NewRepo(t, map[string]string{"gone.txt": "delete me\n", "log.txt": "one\n"})
	return scenario{dir: dir, log: filepath.Join(t.TempDir(), "hooks.jsonl")}
}

func (s scenario) path(name string) string { return filepath.Join(s.dir, name) }

// checkEdits checks that the scripted write and shellEdit happened.
func (s scenario) checkEdits(t *testing.T, written string) {
	t.Helper()
	want := map[string]string{written: "written by the agent\n", "new.txt": "new\n", "log.txt": "one\ntwo\n"}
	for name, content := range want {
		got, err := os.ReadFile(s.path(name))
		if err != nil || string(got) != content {
			t.Errorf("%s: got %q, %v; want %q", name, got, err, content)
		}
	}
	if _, err := os.Stat(s.path("gone.txt")); !os.IsNotExist(err) {
		t.Errorf("gone.txt: still there (%v)", err)
	}
}

// checkEvents checks the hook log's event names and that every payload
// names the same, non-empty session.
func checkEvents(t *testing.T, events []HookEvent, want []string) {
	t.Helper()
	if got := EventNames(events); !slices.Equal(got, want) {
		t.Errorf("hook events:\n got %q\nwant %q", got, want)
	}
	if len(events) == 0 {
		return
	}
	session := events[0].Session()
	if session == "" {
		t.Errorf("first hook payload has no session id: %v", events[0])
	}
	for i, e := range events {
		if e.Session() != session {
			t.Errorf("hook payload %d (%s): session %q, want %q", i, e.Name(), e.Session(), session)
		}
	}
}

// mustSucceed fails the test when the run failed, with what it printed and
// what the server saw.
func mustSucceed(t *testing.T, res *Result, srv *Server) {
	t.Helper()
	kinds := map[string]int{}
	for _, r := range srv.Requests() {
		kinds[r.Kind]++
	}
	t.Logf("agent ran %s; requests: %d step, %d side, %d other",
		res.Elapsed.Round(time.Millisecond), kinds[KindStep], kinds[KindSide], kinds[KindOther])
	if res.Err != nil {
		t.Fatalf("agent failed: %s\n--- requests\n%s", res, srv.Dump())
	}
}

var claudeEvents = []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse",
	"PostToolUseFailure", "Stop", "SubagentStop", "SessionEnd"}

func TestClaudeTurn(t *testing.T) {
	s := newScenario(t)
	srv := NewClaudeServer(t, Script{Steps: []Step{
		Do(ClaudeWrite(s.path("written.txt"), "written by the agent\n")),
		Do(ClaudeBash(shellEdit)),
		Say("All done."),
	}})
	res := RunClaude(t, Run{Dir: s.dir, URL: srv.URL, Prompt: "edit the files",
		Hooks: HookConfig(LogCommand(s.log), claudeEvents...), Env: GitEnv()})
	mustSucceed(t, res, srv)
	s.checkEdits(t, "written.txt")
	checkEvents(t, ReadHookLog(t, s.log), []string{"SessionStart", "UserPromptSubmit",
		"PreToolUse:Write", "PostToolUse:Write", "PreToolUse:Bash", "PostToolUse:Bash", "Stop", "SessionEnd"})
}

var codexEvents = []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"}

func TestCodexTurn(t *testing.T) {
	s := newScenario(t)
	srv := NewCodexServer(t, Script{Steps: []Step{
		Do(CodexPatch("*** Begin Patch\n*** Add File: written.txt\n+written by the agent\n*** End Patch\n")),
		Do(CodexShell(shellEdit)),
		Say("All done."),
	}})
	res := RunCodex(t, Run{Dir: s.dir, URL: srv.URL, Prompt: "edit the files",
		Hooks: HookConfig(LogCommand(s.log), codexEvents...), Config: CodexNotify(s.log), Env: GitEnv()})
	mustSucceed(t, res, srv)
	s.checkEdits(t, "written.txt")
	checkEvents(t, ReadHookLog(t, s.log), []string{"SessionStart", "UserPromptSubmit",
		"PreToolUse:apply_patch", "PostToolUse:apply_patch", "PreToolUse:Bash", "PostToolUse:Bash",
		"Stop", "agent-turn-complete", "SessionEnd"})
}

var geminiEvents = []string{"SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "AfterAgent", "SessionEnd"}

func TestGeminiTurn(t *testing.T) {
	s := newScenario(t)
	srv := NewGeminiServer(t, Script{Steps: []Step{
		Do(GeminiWriteFile(s.path("written.txt"), "written by the agent\n")),
		Do(GeminiShell(shellEdit)),
		Say("All done."),
	}})
	res := RunGemini(t, Run{Dir: s.dir, URL: srv.URL, Prompt: "edit the files",
		Hooks: HookConfig(LogCommand(s.log), geminiEvents...), Env: GitEnv()})
	mustSucceed(t, res, srv)
	s.checkEdits(t, "written.txt")
	checkEvents(t, ReadHookLog(t, s.log), []string{"SessionStart", "BeforeAgent",
		"BeforeTool:write_file", "AfterTool:write_file", "BeforeTool:run_shell_command", "AfterTool:run_shell_command",
		"AfterAgent", "SessionEnd"})
}

var copilotEvents = []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse",
	"PostToolUseFailure", "Stop", "SubagentStop", "SessionEnd"}

func TestCopilotTurn(t *testing.T) {
	s := newScenario(t)
	srv := NewClaudeServer(t, Script{Steps: []Step{
		Do(CopilotCreate(s.path("written.txt"), "written by the agent\n")),
		Do(CopilotBash(shellEdit)),
		Say("All done."),
	}})
	res := RunCopilot(t, Run{Dir: s.dir, URL: srv.URL, Prompt: "edit the files",
		Hooks: CopilotHookConfig(LogCommand(s.log), copilotEvents...), Env: GitEnv()})
	mustSucceed(t, res, srv)
	s.checkEdits(t, "written.txt")
	checkEvents(t, ReadHookLog(t, s.log), []string{"SessionStart", "UserPromptSubmit",
		"PreToolUse:Write", "PostToolUse:Write", "PreToolUse:Bash", "PostToolUse:Bash", "Stop", "SessionEnd"})
}

// A Copilot CLI subagent's events come as a session of their own, with a
// prompt and a Stop, between the main agent's PreToolUse and PostToolUse
// of Agent (its task tool); SubagentStop comes in the main session.
func TestCopilotSubagent(t *testing.T) {
	s := newScenario(t)
	srv := NewClaudeServer(t, Script{
		Steps: []Step{Do(CopilotTask("helper", "SUBTASK-7: write sub.txt")), Say("All done.")},
		Sub:   map[string][]Step{"SUBTASK-7": {Do(CopilotCreate(s.path("sub.txt"), "sub\n")), Say("Sub done.")}},
	})
	res := RunCopilot(t, Run{Dir: s.dir, URL: srv.URL, Prompt: "start a helper",
		Hooks: CopilotHookConfig(LogCommand(s.log), copilotEvents...), Env: GitEnv()})
	mustSucceed(t, res, srv)
	events := ReadHookLog(t, s.log)
	if got, want := EventNames(events), []string{"SessionStart", "UserPromptSubmit", "PreToolUse:Agent",
		"UserPromptSubmit", "PreToolUse:Write", "PostToolUse:Write", "Stop", "SubagentStop",
		"PostToolUse:Agent", "Stop", "SessionEnd"}; !slices.Equal(got, want) {
		t.Fatalf("hook events:\n got %q\nwant %q", got, want)
	}
	main, sub := events[0].Session(), events[3].Session()
	for i, e := range events {
		want, parent := main, ""
		if i >= 3 && i <= 6 {
			want, parent = sub, main
		}
		if got, _ := e["parent_agent_id"].(string); e.Session() != want || (parent != "" && got != parent) {
			t.Errorf("hook payload %d (%s): session %q parent %q, want %q %q", i, e.Name(), e.Session(), got, want, parent)
		}
	}
	if sub == main || sub == "" {
		t.Errorf("the subagent's session is %q, the main one %q", sub, main)
	}
}

// A Bash call that exits non-zero is reported as PostToolUseFailure, though
// the files it changed stay changed.
func TestClaudeFailingBash(t *testing.T) {
	s := newScenario(t)
	srv := NewClaudeServer(t, Script{Steps: []Step{
		Do(ClaudeBash("echo partial > partial.txt; exit 3")),
		Say("That failed."),
	}})
	res := RunClaude(t, Run{Dir: s.dir, URL: srv.URL, Prompt: "try something",
		Hooks: HookConfig(LogCommand(s.log), claudeEvents...), Env: GitEnv()})
	mustSucceed(t, res, srv)
	if got, err := os.ReadFile(s.path("partial.txt")); string(got) != "partial\n" {
		t.Errorf("partial.txt: got %q, %v", got, err)
	}
	checkEvents(t, ReadHookLog(t, s.log), []string{"SessionStart", "UserPromptSubmit",
		"PreToolUse:Bash", "PostToolUseFailure:Bash", "Stop", "SessionEnd"})
}

// A background subagent's write can land after the main turn's Stop; it is
// followed by SubagentStop (and the main agent's next turn).
func TestClaudeBackgroundSubagent(t *testing.T) {
	s := newScenario(t)
	srv := NewClaudeServer(t, Script{
		Steps: []Step{
			Do(ClaudeAgent("helper", "SUBTASK-7: write sub.txt")),
			Say("Started a helper."),
		},
		Sub: map[string][]Step{"SUBTASK-7": {
			// Long enough for the main turn to stop first.
			Do(ClaudeBash("sleep 3")),
			Do(ClaudeWrite(s.path("sub.txt"), "sub\n")),
			Say("Subagent finished."),
		}},
	})
	res := RunClaude(t, Run{Dir: s.dir, URL: srv.URL, Prompt: "start a helper",
		Hooks: HookConfig(LogCommand(s.log), claudeEvents...), Env: GitEnv()})
	mustSucceed(t, res, srv)
	if got, err := os.ReadFile(s.path("sub.txt")); string(got) != "sub\n" {
		t.Errorf("sub.txt: got %q, %v", got, err)
	}

	// The subagent's tool events (they carry its agent_id) interleave
	// with the main agent's at times that vary; each side is in order.
	events := ReadHookLog(t, s.log)
	checkEvents(t, events, EventNames(events)) // one session throughout
	var main, sub []HookEvent
	for _, e := range events {
		if id, _ := e["agent_id"].(string); id != "" && e.Tool() != "" {
			sub = append(sub, e)
		} else {
			main = append(main, e)
		}
	}
	checkEvents(t, main, []string{"SessionStart", "UserPromptSubmit",
		"PreToolUse:Agent", "PostToolUse:Agent", "Stop", "SubagentStop",
		// The subagent's result comes back to the main agent as a new prompt.
		"UserPromptSubmit", "Stop", "SessionEnd"})
	checkEvents(t, sub, []string{"PreToolUse:Bash", "PostToolUse:Bash", "PreToolUse:Write", "PostToolUse:Write"})

	names := EventNames(events)
	stop := slices.Index(names, "Stop")
	write := slices.Index(names, "PostToolUse:Write")
	subStop := slices.Index(names, "SubagentStop")
	if stop > write || write > subStop {
		t.Errorf("want Stop, then the subagent's PostToolUse:Write, then SubagentStop; got %q", names)
	}
}

// claudeToolResultUUID returns the uuid of the transcript line that holds
// the result of the first call to tool.
func claudeToolResultUUID(t *testing.T, lines []map[string]any, tool string) string {
	t.Helper()
	contents := func(l map[string]any) []any {
		m, _ := l["message"].(map[string]any)
		c, _ := m["content"].([]any)
		return c
	}
	callID := ""
	for _, l := range lines {
		for _, c := range contents(l) {
			b, _ := c.(map[string]any)
			if callID == "" && l["type"] == "assistant" && b["type"] == "tool_use" && b["name"] == tool {
				callID, _ = b["id"].(string)
			}
			if callID != "" && l["type"] == "user" && b["type"] == "tool_result" && b["tool_use_id"] == callID {
				uuid, _ := l["uuid"].(string)
				return uuid
			}
		}
	}
	t.Fatalf("no result of a %s call in the transcript", tool)
	return ""
}

// A session can be forked at a transcript line: the new session's model
// sees the history up to that line only, and the original transcript stays
// as it was.
func TestClaudeResumeFork(t *testing.T) {
	s := newScenario(t)
	srv := NewClaudeServer(t, Script{Steps: []Step{
		Do(ClaudeWrite(s.path("written.txt"), "written by the agent\n")),
		Do(ClaudeBash(shellEdit)),
		Say("All done."),
	}})
	hooks := HookConfig(LogCommand(s.log), claudeEvents...)
	first := RunClaude(t, Run{Dir: s.dir, URL: srv.URL, Prompt: "edit the files", Hooks: hooks, Env: GitEnv()})
	mustSucceed(t, first, srv)
	events := ReadHookLog(t, s.log)
	session := events[0].Session()
	transcript := ClaudeTranscript(first.Home, s.dir, session)
	if got := events[0]["transcript_path"]; got != transcript {
		t.Fatalf("transcript_path %q, want %q", got, transcript)
	}
	before, err := os.ReadFile(transcript)
	if err != nil {
		t.Fatal(err)
	}
	at := claudeToolResultUUID(t, ReadJSONL(t, transcript), "Write")

	// The fork's history holds one model reply (the Write), so it is
	// answered by step 1.
	fork := NewClaudeServer(t, Script{Steps: []Step{{}, Say("FORKED-REPLY")}})
	forkLog := filepath.Join(t.TempDir(), "fork-hooks.jsonl")
	second := RunClaude(t, Run{Dir: s.dir, Home: first.Home, URL: fork.URL, Prompt: "carry on",
		Hooks: HookConfig(LogCommand(forkLog), claudeEvents...), Env: GitEnv(),
		Args: []string{"--resume", session, "--resume-session-at", at, "--fork-session"}})
	mustSucceed(t, second, fork)
	if !strings.Contains(second.Stdout, "FORKED-REPLY") {
		t.Errorf("the forked run's output lacks the model's reply:\n%s", second)
	}
	steps := fork.Steps()
	if len(steps) != 1 || steps[0].Step != 1 {
		t.Fatalf("want one request answered by step 1, got:\n%s", fork.Dump())
	}
	body := string(steps[0].Body)
	if !strings.Contains(body, "written.txt") || strings.Contains(body, "rm gone.txt") || !strings.Contains(body, "carry on") {
		t.Errorf("the forked request should hold the Write and the new prompt but not the Bash call:\n%s", body)
	}
	forkEvents := ReadHookLog(t, forkLog)
	checkEvents(t, forkEvents, []string{"SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"})
	if len(forkEvents) > 0 {
		if forkEvents[0].Session() == session {
			t.Errorf("the fork kept the original session id %s", session)
		}
		if src := forkEvents[0]["source"]; src != "fork" {
			t.Errorf("fork SessionStart source %v, want fork", src)
		}
	}
	if after, _ := os.ReadFile(transcript); !bytes.Equal(before, after) {
		t.Errorf("forking changed the original transcript")
	}
}

// contextHook returns hook configuration for one event whose hook logs its
// payload and prints JSON asking the agent to add note to the model's
// context.
func contextHook(log, event, note string) string {
	out := fmt.Sprintf(`{"hookSpecificOutput":{"hookEventName":%q,"additionalContext":%q}}`, event, note)
	return HookConfig(LogCommand(log)+" && printf '%s\\n' "+ShellQuote(out), event)
}

// checkNoteReachedModel checks that the first scripted request (the one
// right after the prompt hook) holds both the prompt and the note.
func checkNoteReachedModel(t *testing.T, s scenario, srv *Server, prompt, note string) {
	t.Helper()
	if names := EventNames(ReadHookLog(t, s.log)); len(names) == 0 {
		t.Fatalf("the hook did not run")
	}
	steps := srv.Steps()
	if len(steps) == 0 {
		t.Fatalf("no scripted request:\n%s", srv.Dump())
	}
	body := string(steps[0].Body)
	if !strings.Contains(body, prompt) || !strings.Contains(body, note) {
		t.Errorf("first request lacks the prompt %q or the note %q:\n%s", prompt, note, srv.Dump())
	}
}

const note = "NOTE-XYZ"

func TestClaudeContextInjection(t *testing.T) {
	s := newScenario(t)
	srv := NewClaudeServer(t, Script{})
	res := RunClaude(t, Run{Dir: s.dir, URL: srv.URL, Prompt: "say hello", Env: GitEnv(),
		Hooks: contextHook(s.log, "UserPromptSubmit", note)})
	mustSucceed(t, res, srv)
	checkNoteReachedModel(t, s, srv, "say hello", note)
}

func TestCodexContextInjection(t *testing.T) {
	s := newScenario(t)
	srv := NewCodexServer(t, Script{})
	res := RunCodex(t, Run{Dir: s.dir, URL: srv.URL, Prompt: "say hello", Env: GitEnv(),
		Hooks: contextHook(s.log, "UserPromptSubmit", note)})
	mustSucceed(t, res, srv)
	checkNoteReachedModel(t, s, srv, "say hello", note)
}

// Copilot CLI passes a top-level additionalContext on to its model and
// drops the hookSpecificOutput form the others read.
func TestCopilotContextInjection(t *testing.T) {
	for _, tc := range []struct {
		out     string
		reaches bool
	}{
		{`{"additionalContext":"` + note + `"}`, true},
		{`{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"` + note + `"}}`, false},
	} {
		s := newScenario(t)
		srv := NewClaudeServer(t, Script{})
		res := RunCopilot(t, Run{Dir: s.dir, URL: srv.URL, Prompt: "say hello", Env: GitEnv(),
			Hooks: CopilotHookConfig(LogCommand(s.log)+" && printf '%s\\n' "+ShellQuote(tc.out), "UserPromptSubmit")})
		mustSucceed(t, res, srv)
		if tc.reaches {
			checkNoteReachedModel(t, s, srv, "say hello", note)
			continue
		}
		// The hook ran and the model was asked, with the prompt but
		// without the note.
		if names := EventNames(ReadHookLog(t, s.log)); len(names) == 0 {
			t.Fatalf("the hook did not run")
		}
		steps := srv.Steps()
		if len(steps) == 0 || !strings.Contains(string(steps[0].Body), "say hello") {
			t.Fatalf("no request with the prompt reached the model:\n%s", srv.Dump())
		}
		for _, r := range steps {
			if strings.Contains(string(r.Body), note) {
				t.Errorf("%s reached the model", tc.out)
			}
		}
	}
}

func TestGeminiContextInjection(t *testing.T) {
	s := newScenario(t)
	srv := NewGeminiServer(t, Script{})
	res := RunGemini(t, Run{Dir: s.dir, URL: srv.URL, Prompt: "say hello", Env: GitEnv(),
		Hooks: contextHook(s.log, "BeforeAgent", note)})
	mustSucceed(t, res, srv)
	checkNoteReachedModel(t, s, srv, "say hello", note)
}

// Hooks in the user's own configuration (UserScope) fire as project hooks
// do.
func TestUserScopeHooks(t *testing.T) {
	for _, tc := range []struct {
		agent string
		event string
		serve func(testing.TB, Script) *Server
		run   func(testing.TB, Run) *Result
	}{
		{"claude", "UserPromptSubmit", NewClaudeServer, RunClaude},
		{"codex", "UserPromptSubmit", NewCodexServer, RunCodex},
		{"gemini", "BeforeAgent", NewGeminiServer, RunGemini},
		{"copilot", "UserPromptSubmit", NewClaudeServer, RunCopilot},
	} {
		t.Run(tc.agent, func(t *testing.T) {
			s := newScenario(t)
			srv := tc.serve(t, Script{})
			hooks := HookConfig(LogCommand(s.log), tc.event)
			if tc.agent == "copilot" {
				hooks = CopilotHookConfig(LogCommand(s.log), tc.event)
			}
			res := tc.run(t, Run{Dir: s.dir, URL: srv.URL, Prompt: "say hello", Env: GitEnv(),
				Hooks: hooks, Scope: UserScope})
			mustSucceed(t, res, srv)
			checkEvents(t, ReadHookLog(t, s.log), []string{tc.event})
			for _, p := range []string{".claude", ".codex", ".gemini", ".github"} {
				if _, err := os.Stat(s.path(p)); err == nil {
					t.Errorf("user-scope hooks were written into the project (%s)", p)
				}
			}
		})
	}
}

// A run that outlives its timeout is stopped, and so is every process it
// started.
func TestRunTimeoutKillsAgent(t *testing.T) {
	s := newScenario(t)
	srv := NewClaudeServer(t, Script{Steps: []Step{
		Do(ClaudeBash("echo $$ > shell.pid && sleep 300")),
	}})
	res := RunClaude(t, Run{Dir: s.dir, URL: srv.URL, Prompt: "wait", Env: GitEnv(), Timeout: 8 * time.Second})
	if res.Err == nil || !strings.Contains(res.Err.Error(), "timed out") {
		t.Fatalf("want a timeout, got: %s", res)
	}
	if res.Elapsed > 20*time.Second {
		t.Errorf("the run took %s to stop", res.Elapsed)
	}
	b, err := os.ReadFile(s.path("shell.pid"))
	if err != nil {
		t.Fatalf("the Bash call did not start: %v\n%s", err, res)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for processAlive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("the agent's shell (pid %d) is still running", pid)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// processAlive reports whether pid names a live process (not a zombie).
func processAlive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the command name in parentheses.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

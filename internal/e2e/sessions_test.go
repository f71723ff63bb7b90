package e2e

import (
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/agents"
	"github.com/git-checkpoint/git-checkpoint/internal/agenttest"
)

// barrier is a point one agent run reaches: reach marks it, and a run that
// waits for it goes on once it is reached or once the run that would reach
// it has ended (a failed run must not hold the other one until its
// timeout).
type barrier struct {
	once         sync.Once
	reached, end chan struct{}
}

func newBarrier() *barrier { return &barrier{reached: make(chan struct{}), end: make(chan struct{})} }

func (b *barrier) reach() { b.once.Do(func() { close(b.reached) }) }

func (b *barrier) wait() {
	select {
	case <-b.reached:
	case <-b.end:
	}
}

// twoSessionsStory: Claude Code and Codex work in one tree at the same
// time, each making two edits at once in one model reply (parallel tool
// calls) and then running a shell command. The fake model servers hold
// each agent at a step until the other has got somewhere, so the turns
// really overlap: A (Claude) writes a1 and a2 alone, then B (Codex)
// starts and patches b1 and b2 while A's turn runs, then A runs a
// command that writes a3 while B's turn runs, then B runs one that writes
// b3, before A's turn ends. Every hook call must take its checkpoint (none lost, none failed);
// whose each change is follows DESIGN section 6.3: what A did alone is
// A's, what was changed while both turns ran is "outside" (nobody can tell
// whose it was), so a rewind of A never takes B's work unasked.
func twoSessionsStory(t *testing.T, tools string) {
	f := newFixture(t, tools)
	f.exits(0, "git", "checkpoint", "install", "claude")
	f.exits(0, "git", "checkpoint", "install", "codex")
	config, err := os.ReadFile(f.home + "/.codex/config.toml")
	if err != nil {
		t.Fatal(err)
	}
	before := f.manifest()

	aWrote, bPatched, aRan, bRan := newBarrier(), newBarrier(), newBarrier(), newBarrier()
	claude := agenttest.NewClaudeServer(t, agenttest.Script{Steps: []agenttest.Step{
		agenttest.Do(agenttest.ClaudeWrite(f.path("a1.txt"), "a1\n"), agenttest.ClaudeWrite(f.path("a2.txt"), "a2\n")),
		{Calls: []agenttest.Call{agenttest.ClaudeBash("echo a3 > a3.txt")}, Wait: func() { aWrote.reach(); bPatched.wait() }},
		// A's turn ends only once B's command is recorded, so that b3 is
		// changed while both turns run, whatever the agents' pace.
		{Text: "A-DONE", Wait: func() { aRan.reach(); bRan.wait() }},
	}})
	codex := agenttest.NewCodexServer(t, agenttest.Script{Steps: []agenttest.Step{
		agenttest.Do(
			agenttest.CodexPatch("*** Begin Patch\n*** Add File: b1.txt\n+b1\n*** End Patch\n"),
			agenttest.CodexPatch("*** Begin Patch\n*** Add File: b2.txt\n+b2\n*** End Patch\n")),
		{Calls: []agenttest.Call{agenttest.CodexShell("echo b3 > b3.txt")}, Wait: func() { bPatched.reach(); aRan.wait() }},
		{Text: "B-DONE", Wait: bRan.reach},
	}})

	var a, b *agenttest.Result
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		defer close(aWrote.end)
		defer close(aRan.end)
		a = agenttest.RunClaude(t, agenttest.Run{Dir: f.dir, URL: claude.URL, Env: f.env, Prompt: "A: write a1 and a2"})
	}()
	go func() {
		defer wg.Done()
		defer close(bPatched.end)
		defer close(bRan.end)
		aWrote.wait() // B's turn starts once A's first edits are recorded
		b = agenttest.RunCodex(t, agenttest.Run{Dir: f.dir, Home: f.home, URL: codex.URL, Env: f.env,
			Config: string(config), Prompt: "B: patch b1 and b2"})
	}()
	wg.Wait()
	f.ran(a, claude)
	f.ran(b, codex)
	if h := agents.ReadHealth(f.stateDir()); h.Failures != 0 || h.Untold != 0 {
		t.Errorf("hook health: %+v, want no failures", h)
	}
	sessionA, sessionB := claudeSession(t, a), codexThread(t, b)
	for name, want := range map[string]string{"a1.txt": "a1\n", "a2.txt": "a2\n", "a3.txt": "a3\n", "b1.txt": "b1\n", "b2.txt": "b2\n", "b3.txt": "b3\n"} {
		if got := f.read(name); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}

	// every hook call's checkpoint is in the journal, by session
	bySession := map[string][]string{}
	var order []string // for the log: how the two sessions' records interleaved
	startA := ""
	for _, r := range f.journal() {
		words := []string{r.Reason}
		if r.Tool != "" {
			words = append(words, r.Tool)
		}
		if len(r.Paths) > 0 {
			words = append(words, strings.Join(r.Paths, ","))
		}
		bySession[r.Session] = append(bySession[r.Session], strings.Join(words, " "))
		order = append(order, r.Agent+" "+r.Turn+" "+strings.Join(words, " "))
		if r.Session == sessionA && r.Reason == "turn_start" && startA == "" {
			startA = r.Turn
		}
	}
	for s, want := range map[string][]string{
		sessionA: {"turn_start", "tool Write a1.txt", "tool Write a2.txt", "tool Bash a3.txt", "turn_end"},
		// Codex's Stop, then its notify; its shell command names no files
		sessionB: {"turn_start", "tool apply_patch b1.txt", "tool apply_patch b2.txt", "tool Bash", "turn_end", "turn_end"},
	} {
		got := bySession[s]
		sort.Strings(got)
		sort.Strings(want)
		sameLines(t, "journal records of session "+s, got, want)
	}
	t.Logf("journal: %q", order)
	if i, j := slices.Index(order, "codex t2 tool Bash"), slices.Index(order, "claude t1 turn_end"); i < 0 || j < 0 || i > j {
		t.Fatalf("B's command is not recorded while A's turn runs: %q", order)
	}
	if len(bySession) != 2 {
		t.Errorf("journal sessions: %v, want only %s and %s", bySession, sessionA, sessionB)
	}
	f.exits(0, "git", "checkpoint", "doctor")

	// a rewind to A's turn start: A's lone edits are A's, everything
	// changed while both ran is outside, B's files among them
	var plan rewindDoc
	f.exitsJSON(0, &plan, "git", "rewind", startA, "--dry-run", "--json")
	classes := func(d rewindDoc) map[string]string {
		m := map[string]string{}
		for _, p := range d.Files {
			m[p.Path] = p.Change + " " + p.Class
		}
		return m
	}
	got := classes(plan)
	for p, want := range map[string]string{
		"a1.txt": "delete agent", "a2.txt": "delete agent", "a3.txt": "delete outside",
		"b1.txt": "delete outside", "b2.txt": "delete outside", "b3.txt": "delete outside",
	} {
		if got[p] != want {
			t.Errorf("git rewind %s --dry-run: %s is %q, want %q (plan %v)", startA, p, got[p], want, got)
		}
	}

	// session A's reversal: A's lone edits go; B's patches, made while A's
	// turn ran, are outside, so the plain rewind refuses and changes
	// nothing, and --outside=keep keeps them byte for byte
	f.exitsJSON(0, &plan, "git", "rewind", "--session", sessionA, "--dry-run", "--json")
	got = classes(plan)
	for _, p := range []string{"a1.txt", "a2.txt"} {
		if got[p] != "delete agent" {
			t.Errorf("git rewind --session A --dry-run: %s is %q, want delete agent (plan %v)", p, got[p], got)
		}
	}
	for p, c := range got {
		if strings.HasPrefix(p, "b") && !strings.HasSuffix(c, " outside") {
			t.Errorf("git rewind --session A --dry-run: B's %s is %q, want outside (plan %v)", p, c, got)
		}
	}
	now := f.manifest()
	f.exits(5, "git", "rewind", "--session", sessionA, "--yes")
	f.sameTree("after the refused reversal of session A", now)
	f.exits(0, "git", "rewind", "--session", sessionA, "--yes", "--outside=keep")
	// a1 and a2 gone; a3, changed while both turns ran, left as it is;
	// B's files as B left them
	want := merged(before, nil)
	for _, p := range []string{"a3.txt", "b1.txt", "b2.txt", "b3.txt"} {
		want[p] = now[p]
	}
	f.sameTree("after git rewind --session A --outside=keep", want)
}

package agents

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/agenttest"
)

// pluginHarness drives the plugin as OpenCode does (chat.message and
// tool.execute.after awaited, session.idle fired and forgotten, dispose
// awaited at exit) and prints "resolved" when every call returned, after
// copying the calls made by the time dispose returned.
const pluginHarness = `
const { GitCheckpoint } = await import(process.argv[2])
const hooks = await GitCheckpoint({ directory: process.cwd() })
await hooks["chat.message"]({ sessionID: "s1" }, { message: {}, parts: [{ type: "text", text: "go" }] })
hooks.event({ event: { type: "session.created", properties: { info: { id: "s2", parentID: "s1" } } } })
// a tool's output can be megabytes (a file read, a build's log): the hook
// needs none of it
await hooks["tool.execute.after"]({ tool: "write", sessionID: "s2", callID: "c", args: { filePath: "a" } },
  { title: "", output: "TOOL-OUTPUT ".repeat(200000), metadata: {} })
hooks.event({ event: { type: "session.idle", properties: { sessionID: "s1" } } })
await hooks.dispose()
// what had been called when dispose returned (OpenCode exits then)
const fs = await import("node:fs")
if (fs.existsSync(process.argv[3])) fs.copyFileSync(process.argv[3], process.argv[3] + ".at-dispose")
console.log("resolved")
`

// TestOpenCodePluginRuns runs the plugin under node: the hook calls go
// out one at a time, in order, dispose returns only once the last one
// (session.idle, which OpenCode does not await) is done, a subagent's
// call names its parent, and without git-checkpoint on PATH every hook
// still returns and nothing is thrown.
func TestOpenCodePluginRuns(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		agenttest.Missing(t, "node is not installed, so the plugin cannot be run")
	}
	dir := t.TempDir()
	plugin := filepath.Join(dir, "git-checkpoint.mjs")
	harness := filepath.Join(dir, "harness.mjs")
	os.WriteFile(plugin, []byte(openCodePlugin()), 0o644)
	os.WriteFile(harness, []byte(pluginHarness), 0o644)
	bin := filepath.Join(dir, "bin")
	os.Mkdir(bin, 0o755)
	log := filepath.Join(dir, "calls.log")
	// Each call takes a while, so a call not waited for is cut off.
	fake := "#!/bin/sh\nsleep 0.3\n{ echo \"$*\"; cat; echo; echo; } >> " + log + "\n"
	os.WriteFile(filepath.Join(bin, "git-checkpoint"), []byte(fake), 0o755)

	run := func(path string) {
		cmd := exec.Command(node, harness, plugin, log)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "PATH="+path)
		out, err := cmd.CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != "resolved" {
			t.Fatalf("the plugin under node: %v\n%s", err, out)
		}
	}
	run(bin + string(os.PathListSeparator) + os.Getenv("PATH"))
	b, _ := os.ReadFile(log + ".at-dispose")
	calls := strings.Split(strings.TrimSpace(string(b)), "\n\n")
	var names []string
	for _, c := range calls {
		args, body, _ := strings.Cut(c, "\n")
		if args != "hook opencode" {
			t.Errorf("called with %q", args)
		}
		if len(body) > 4096 || strings.Contains(body, "TOOL-OUTPUT") {
			t.Errorf("a call sent %d bytes, the tool's output with them: %.200s", len(body), body)
		}
		ev, err := Parse(OpenCode, nil, []byte(body), false)
		if err != nil {
			t.Fatalf("%v: %.300s", err, body)
		}
		names = append(names, ev.Name+" "+ev.Session+" "+ev.Reason+" "+strings.Join(ev.Names, ","))
	}
	want := []string{"chat.message s1 turn_start ", "tool.execute.after s1 tool a", "session.idle s1 turn_end "}
	if strings.Join(names, "|") != strings.Join(want, "|") {
		t.Errorf("calls:\n got %q\nwant %q", names, want)
	}

	// without git-checkpoint: nothing to run, nothing thrown
	os.Remove(log)
	os.Remove(log + ".at-dispose")
	run(filepath.Dir(node))
	if _, err := os.Stat(log); err == nil {
		t.Error("a git-checkpoint that is not on PATH ran")
	}
}

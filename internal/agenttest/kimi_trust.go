package agenttest

import (
	"fmt"
	"testing"
	"time"
)

// KimiTrust trusts run.Dir as a person does: it starts Kimi Code's
// terminal interface there (kimi, no prompt) on a real terminal
// (StartTerminal), answers its "Trust this folder?" with Enter, the
// first choice, and leaves with Ctrl-C twice once the prompt box shows,
// the second once Kimi says a second would exit. Kimi Code remembers the
// choice for that directory under its home, and only then starts the MCP
// servers of the project's files, kimi -p too. Without tmux the test is
// skipped, or fails with CI=true, where .ci/run installs it.
func KimiTrust(t testing.TB, run Run) {
	t.Helper()
	bin := Binary(t, "kimi")
	prepareHome(t, &run)
	nodeFirst(t, &run)
	env := append(append(kimiEnv(t, run), "TERM=xterm-256color"), run.Env...)
	tm := StartTerminal(t, env, run.Dir, 100, 40, fmt.Sprintf("'%s'; echo KIMI-EXITED", bin))
	tm.Timeout = time.Minute
	tm.WaitFor("Trust this folder?")
	tm.Keys("Enter")
	tm.WaitFor("context:") // the prompt box's status line
	tm.Keys("C-c")
	tm.WaitFor("Press Ctrl+C again to exit")
	tm.Keys("C-c")
	tm.WaitFor("KIMI-EXITED")
}

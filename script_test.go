package checkpoint_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/git-checkpoint/git-checkpoint/internal/cli"
	"github.com/git-checkpoint/git-checkpoint/internal/crashfs"
	"github.com/git-checkpoint/git-checkpoint/internal/mcp"
	"github.com/git-checkpoint/git-checkpoint/internal/scripttest"
	"github.com/git-checkpoint/git-checkpoint/internal/secrets"
	"github.com/git-checkpoint/git-checkpoint/internal/secrets/leaks"
)

var update = flag.Bool("update", false, "rewrite the transcripts' expected output")

// TestMain lets the test binary be git-checkpoint, git-rewind,
// git-checkpoint-mcp and git-checkpoint-scan, so that transcripts reach them through git's own
// dispatch of `git checkpoint`.
//
// crashfs.Main first: the power-loss test starts the test binary as the
// wrapper that lets it see a command's syncfs calls.
func TestMain(m *testing.M) {
	crashfs.Main()
	testscript.Main(m, map[string]func(){
		"git-checkpoint": func() { os.Exit(cli.Checkpoint(os.Args[1:], cli.System())) },
		"git-rewind":     func() { os.Exit(cli.Rewind(os.Args[1:], cli.System())) },
		cli.MCPServer:    func() { os.Exit(cli.MCP(os.Args[1:], cli.System(), mcp.Run)) },
		secrets.Helper:   func() { os.Exit(secrets.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, leaks.Full())) },
	})
}

func TestScripts(t *testing.T) {
	manDir, err := filepath.Abs("man")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir: filepath.Join("testdata", "scripts"),
		Setup: func(env *testscript.Env) error {
			// The generated man pages, for the transcript that installs
			// them where man looks and asks git for --help.
			env.Setenv("PROJECT_MAN", manDir)
			return scripttest.Setup(env)
		},
		Cmds:                scripttest.Commands(),
		Condition:           scripttest.Condition,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       *update,
	})
}

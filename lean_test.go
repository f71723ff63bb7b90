package checkpoint_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestLeanBinaries keeps the MCP SDK, and the net/http and TLS it brings,
// out of the binaries every hook and command starts: Go initializes every
// package linked at every start, which cost git-checkpoint about 6 ms of
// each start (docs/decisions.md). Only git-checkpoint-mcp links them.
func TestLeanBinaries(t *testing.T) {
	for _, cmd := range []string{"./cmd/git-checkpoint", "./cmd/git-rewind", "./cmd/git-checkpoint-mcp"} {
		out, err := exec.Command("go", "list", "-deps", cmd).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", cmd, err)
		}
		deps := strings.Fields(string(out))
		sdk := slices.Contains(deps, "github.com/modelcontextprotocol/go-sdk/mcp")
		switch {
		case cmd == "./cmd/git-checkpoint-mcp" && !sdk:
			t.Errorf("%s does not link the MCP SDK: this test no longer looks at the right package", cmd)
		case cmd != "./cmd/git-checkpoint-mcp" && (sdk || slices.Contains(deps, "net/http")):
			t.Errorf("%s links the MCP SDK or net/http, which every start would pay for", cmd)
		}
	}
}

package agents

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// codexEvent maps a Codex CLI hook event. Codex's hooks share Claude
// Code's names and shapes; shell commands come as tool "Bash" and edits as
// "apply_patch", whose input is the patch.
func codexEvent(ev *Event, p *payload) error {
	switch ev.Name {
	case "UserPromptSubmit":
		ev.Reason, ev.NoteEvent = store.ReasonTurnStart, "UserPromptSubmit"
	case "PostToolUse", "PostToolUseFailure":
		toolEvent(ev, p)
	case "Stop":
		ev.Reason = store.ReasonTurnEnd
	case "SessionStart", "PreToolUse", "SessionEnd":
	default:
		return fmt.Errorf("%w %q", ErrUnknown, ev.Name)
	}
	return nil
}

// codexNotify reads Codex's notify call: the JSON is the last argument
// (earlier ones, if any, belong to a notify program chained after ours).
func codexNotify(args []string) (*Event, error) {
	if len(args) == 0 {
		return nil, errors.New("notify without its JSON argument")
	}
	arg := args[len(args)-1]
	if len(arg) > MaxInput {
		return nil, fmt.Errorf("the notify argument is over %d bytes", MaxInput)
	}
	var n struct {
		Type     string `json:"type"`
		ThreadID string `json:"thread-id"`
		Cwd      string `json:"cwd"`
	}
	if err := json.Unmarshal([]byte(arg), &n); err != nil {
		return nil, fmt.Errorf("the notify argument is not JSON: %v", err)
	}
	ev := &Event{Agent: Codex, Name: n.Type, Session: n.ThreadID, Cwd: n.Cwd}
	if n.Type != "agent-turn-complete" {
		return nil, fmt.Errorf("%w: notify type %q", ErrUnknown, n.Type)
	}
	ev.Reason = store.ReasonTurnEnd
	return ev, nil
}

// patchPaths lists the files an apply_patch patch adds, updates, deletes
// or moves to, relative to the working directory.
func patchPaths(patch string) []string {
	var out []string
	for _, line := range strings.Split(patch, "\n") {
		line = strings.TrimRight(line, "\r")
		for _, h := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
			if name, ok := strings.CutPrefix(line, h); ok {
				out = appendNonEmpty(out, strings.TrimSpace(name))
			}
		}
	}
	return out
}

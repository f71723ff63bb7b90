package agents

import (
	"fmt"

	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// geminiEvent maps a Gemini CLI hook event. Gemini reads a hook's stdout
// as JSON: BeforeAgent may answer with additionalContext, which is how a
// pending note reaches its model.
func geminiEvent(ev *Event, p *payload) error {
	switch ev.Name {
	case "BeforeAgent":
		ev.Reason, ev.NoteEvent = store.ReasonTurnStart, "BeforeAgent"
	case "AfterTool":
		toolEvent(ev, p)
	case "AfterAgent":
		ev.Reason = store.ReasonTurnEnd
	case "SessionStart", "SessionEnd", "BeforeTool", "BeforeModel", "AfterModel",
		"BeforeToolSelection", "PreCompress", "Notification":
	default:
		return fmt.Errorf("%w %q", ErrUnknown, ev.Name)
	}
	return nil
}

package agents

import (
	"fmt"

	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// claudeEvent maps a Claude Code hook event (DESIGN section 7).
// PostToolUseFailure counts like PostToolUse: a failed Bash command may
// have changed files before it failed. A background subagent can write
// after the main agent's Stop, so SubagentStop ends a turn too. A pending
// note goes out on UserPromptSubmit only: Claude Code 2.1 drops the
// context SessionStart adds when a session is resumed with
// --resume-session-at, which is exactly how a rewind's resume command
// starts one.
func claudeEvent(ev *Event, p *payload) error {
	switch ev.Name {
	case "UserPromptSubmit":
		ev.Reason, ev.NoteEvent = store.ReasonTurnStart, "UserPromptSubmit"
	case "PostToolUse", "PostToolUseFailure":
		toolEvent(ev, p)
	case "Stop":
		ev.Reason, ev.LastLine, ev.Reply = store.ReasonTurnEnd, true, p.LastAssistantMessage
	case "SubagentStop":
		// Its last_assistant_message is the subagent's, which is not in
		// the main transcript.
		ev.Reason, ev.LastLine = store.ReasonTurnEnd, true
	case "SessionStart", "PreToolUse", "PostToolBatch", "SessionEnd", "SubagentStart", "Notification",
		"PreCompact", "CwdChanged", "MessageDisplay":
		// Known, and nothing to do: writes are seen after the tool ran.
	default:
		return fmt.Errorf("%w %q", ErrUnknown, ev.Name)
	}
	return nil
}

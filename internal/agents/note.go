package agents

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/durable"
)

// noteFile is where a rewind leaves its note for the next prompt, in the
// working tree's state directory.
const noteFile = "pending-note"

// WriteNote leaves text for the model of the next agent prompt in this
// working tree, replacing an older note.
func WriteNote(stateDir, text string) error {
	// Not synced: a note lost to a power loss is a sentence the model
	// does not read, and a rewind's journal says what it did.
	return durable.Replace(filepath.Join(stateDir, noteFile), []byte(text), durable.How{Racing: true})
}

// AddNote adds text to the note for the next prompt, after what it holds
// already (a rewind's).
func AddNote(stateDir, text string) error {
	if b, err := os.ReadFile(filepath.Join(stateDir, noteFile)); err == nil && len(b) > 0 {
		text = strings.TrimRight(string(b), "\n") + "\n\n" + text
	}
	return WriteNote(stateDir, text)
}

// TakeNote returns the pending note and removes it. The note is first
// renamed to a name of this process's own, so that of several hooks
// running at once exactly one gets it.
func TakeNote(stateDir string) (string, bool) {
	mine := filepath.Join(stateDir, noteFile+".taken"+strconv.Itoa(os.Getpid()))
	if os.Rename(filepath.Join(stateDir, noteFile), mine) != nil {
		return "", false
	}
	defer os.Remove(mine)
	b, err := os.ReadFile(mine)
	if err != nil || len(b) == 0 {
		return "", false
	}
	return string(b), true
}

// Context is what a hook of agent prints to add text to the model's
// context: the hookSpecificOutput form, which Claude Code and Codex read
// on UserPromptSubmit and Gemini CLI on BeforeAgent, or additionalContext
// alone for an agent that reads it there (Copilot CLI, which ignores
// hookSpecificOutput). message, when not empty, goes to the person as
// systemMessage, which Claude Code shows. Kimi Code reads the text as
// "message" and would hand any other output to its model as it is.
func Context(agent, event, text, message string) []byte {
	a, _ := Lookup(agent)
	doc := map[string]any{}
	switch {
	case a.messageContext:
		if text == "" {
			return nil
		}
		doc["message"] = text
		b, _ := json.Marshal(doc)
		return append(b, '\n')
	case text != "" && a.flatContext:
		doc["additionalContext"] = text
	case text != "":
		doc["hookSpecificOutput"] = map[string]string{"hookEventName": event, "additionalContext": text}
	}
	if message != "" {
		doc["systemMessage"] = message
	}
	if len(doc) == 0 {
		return nil
	}
	b, _ := json.Marshal(doc)
	return append(b, '\n')
}

package agenttest

import (
	"encoding/json"
	"sort"
	"strings"
)

// Script is what a fake model says, one Step per model reply.
//
// Which step answers a request is computed from the request itself, not from
// a counter of requests: the step index is the number of model replies already
// in the conversation history the agent sent. That keeps the script in step
// when an agent retries a request, sends side requests (titles, summaries,
// quota checks), runs a subagent in parallel, or resumes a saved session.
// A resumed or forked session goes on from where its history ends. Requests
// that offer the model no tools are side requests: they get SideText and
// consume no step.
type Script struct {
	// Steps answer the main conversation.
	Steps []Step
	// Sub holds the steps of other conversations, such as a subagent's:
	// a conversation whose first user message contains the key plays those
	// steps instead of Steps. Keys are tried in sorted order. The first
	// user message also holds context the agent adds (git status, the
	// directory listing), so use keys found nowhere else, like "SUBTASK-7".
	Sub map[string][]Step
	// Final is the text of the reply once a conversation has run out of
	// steps; "Done." when empty.
	Final string
	// SideText answers side requests; "OK" when empty.
	SideText string
}

// Step is one model reply: tool calls, text, or both (text first).
// A step with neither is answered with the script's Final text.
type Step struct {
	Text  string
	Calls []Call
	// Wait, when set, is called before the reply is sent, and the reply
	// waits for it to return: a barrier that holds one agent at this step
	// until another has got somewhere, so that two runs really overlap. It
	// may be called again when the agent retries the request.
	Wait func()
}

// Call is one tool call the model makes. Name is the agent's own tool name
// (Claude's "Write", Gemini's "write_file", ...) and Args its JSON input.
// Codex tools are translated to whatever shape the request offers them in
// (see CodexShell and CodexPatch).
type Call struct {
	Name string
	Args map[string]any
}

// Say is a step that replies with text only.
func Say(text string) Step { return Step{Text: text} }

// Do is a step that makes the given tool calls in one reply.
func Do(calls ...Call) Step { return Step{Calls: calls} }

// step returns the step at index i of steps, or the final text reply,
// once its Wait, if any, has returned: every fake server answers a step
// only then.
func (s Script) step(steps []Step, i int) Step {
	st := Say(s.finalText())
	switch {
	case i >= 0 && i < len(steps) && (steps[i].Text != "" || len(steps[i].Calls) > 0):
		st = steps[i]
	case i >= 0 && i < len(steps):
		st.Wait = steps[i].Wait
	}
	if st.Wait != nil {
		st.Wait()
	}
	return st
}

func (s Script) finalText() string {
	if s.Final != "" {
		return s.Final
	}
	return "Done."
}

func (s Script) sideText() string {
	if s.SideText != "" {
		return s.SideText
	}
	return "OK"
}

// conversation picks the steps for a conversation from its first user
// message.
func (s Script) conversation(firstUser string) []Step {
	keys := make([]string, 0, len(s.Sub))
	for k := range s.Sub {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if strings.Contains(firstUser, k) {
			return s.Sub[k]
		}
	}
	return s.Steps
}

// message is one message of a request's history, as the Anthropic
// Messages and the OpenAI Chat Completions APIs both send it.
type message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// answer is what a request of those APIs gets: one offering no tools is a
// side request (a title, a summary), answered with the side text; one
// offering tools is a turn of the conversation its first user message
// names, at the step after the model replies its history holds.
func (s Script) answer(tools bool, messages []message) (kind string, index int, step Step) {
	if !tools {
		return KindSide, -1, Say(s.sideText())
	}
	first, seen, replies := "", false, 0
	for _, m := range messages {
		switch {
		case m.Role == "user" && !seen:
			first, seen = claudeText(m.Content), true
		case m.Role == "assistant":
			replies++
		}
	}
	return KindStep, replies, s.step(s.conversation(first), replies)
}

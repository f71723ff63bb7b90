package agenttest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
)

// NewClaudeServer starts a fake Anthropic Messages API for Claude Code.
// Claude Code calls POST /v1/messages?beta=true with stream:true; other
// paths (count_tokens, model listing) get harmless answers.
func NewClaudeServer(t testing.TB, script Script) *Server {
	var ids atomic.Int64
	return startServer(t, func(w http.ResponseWriter, r *http.Request, body []byte) (string, int) {
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/v1/messages":
			return claudeMessages(w, body, script, &ids)
		case strings.HasSuffix(r.URL.Path, "/count_tokens"):
			writeJSON(w, 200, map[string]any{"input_tokens": 100})
		case r.URL.Path == "/v1/models":
			writeJSON(w, 200, map[string]any{"data": []any{}, "has_more": false})
		default:
			writeJSON(w, 200, map[string]any{})
		}
		return KindOther, -1
	})
}

// claudeRequest is the part of a Messages request the fake reads.
type claudeRequest struct {
	Model    string            `json:"model"`
	Stream   bool              `json:"stream"`
	Tools    []json.RawMessage `json:"tools"`
	Messages []message         `json:"messages"`
}

func claudeMessages(w http.ResponseWriter, body []byte, script Script, ids *atomic.Int64) (string, int) {
	var req claudeRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeJSON(w, 400, map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error", "message": err.Error()}})
		return KindOther, -1
	}
	kind, index, step := script.answer(len(req.Tools) > 0, req.Messages)

	// Build the content blocks once; stream them or send them whole.
	type block struct {
		start map[string]any
		delta map[string]any
		full  map[string]any
	}
	var blocks []block
	if step.Text != "" {
		blocks = append(blocks, block{
			start: map[string]any{"type": "text", "text": ""},
			delta: map[string]any{"type": "text_delta", "text": step.Text},
			full:  map[string]any{"type": "text", "text": step.Text},
		})
	}
	for _, c := range step.Calls {
		id := fmt.Sprintf("toolu_fake_%06d", ids.Add(1))
		args := c.Args
		if args == nil {
			args = map[string]any{}
		}
		blocks = append(blocks, block{
			start: map[string]any{"type": "tool_use", "id": id, "name": c.Name, "input": map[string]any{}},
			delta: map[string]any{"type": "input_json_delta", "partial_json": mustJSON(args)},
			full:  map[string]any{"type": "tool_use", "id": id, "name": c.Name, "input": args},
		})
	}
	stop := "end_turn"
	if len(step.Calls) > 0 {
		stop = "tool_use"
	}
	msgID := fmt.Sprintf("msg_fake_%06d", ids.Add(1))
	model := req.Model
	usage := map[string]any{"input_tokens": 100, "output_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}

	if !req.Stream {
		content := make([]any, 0, len(blocks))
		for _, b := range blocks {
			content = append(content, b.full)
		}
		writeJSON(w, 200, map[string]any{
			"id": msgID, "type": "message", "role": "assistant", "model": model,
			"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": usage,
		})
		return kind, index
	}
	s := newSSE(w)
	s.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": msgID, "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 100, "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
	}})
	for i, b := range blocks {
		s.event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": b.start})
		s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": b.delta})
		s.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	s.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": 10}})
	s.event("message_stop", map[string]any{"type": "message_stop"})
	return kind, index
}

// claudeText joins the text of a message's content, which is either a
// string or a list of blocks.
func claudeText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	json.Unmarshal(raw, &blocks)
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// ClaudeWrite is Claude Code's Write call.
func ClaudeWrite(path, content string) Call {
	return Call{Name: "Write", Args: map[string]any{"file_path": path, "content": content}}
}

// ClaudeBash is Claude Code's Bash call.
func ClaudeBash(command string) Call {
	return Call{Name: "Bash", Args: map[string]any{"command": command, "description": "scripted command"}}
}

// ClaudeAgent is Claude Code's Agent call, which starts a general-purpose
// subagent with prompt; the subagent runs in the background unless told
// otherwise. Put a key in prompt and the subagent's steps under that key in
// Script.Sub.
func ClaudeAgent(description, prompt string) Call {
	return Call{Name: "Agent", Args: map[string]any{"description": description, "prompt": prompt, "subagent_type": "general-purpose"}}
}

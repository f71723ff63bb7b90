package agenttest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
)

// NewChatServer starts a fake OpenAI Chat Completions API, the wire API of
// OpenCode's openai-compatible providers: POST /v1/chat/completions,
// streamed (stream:true) or whole. A request offering tools is a turn of
// the conversation; one offering none (OpenCode's session title) is a side
// request. Other paths get harmless answers.
func NewChatServer(t testing.TB, script Script) *Server {
	var ids atomic.Int64
	return startServer(t, func(w http.ResponseWriter, r *http.Request, body []byte) (string, int) {
		if r.Method == http.MethodPost && r.URL.Path == "/v1/chat/completions" {
			return chatCompletions(w, body, script, &ids)
		}
		if r.URL.Path == "/v1/models" {
			writeJSON(w, 200, map[string]any{"object": "list", "data": []any{}})
			return KindOther, -1
		}
		writeJSON(w, 200, map[string]any{})
		return KindOther, -1
	})
}

// chatRequest is the part of a Chat Completions request the fake reads.
type chatRequest struct {
	Model    string            `json:"model"`
	Stream   bool              `json:"stream"`
	Tools    []json.RawMessage `json:"tools"`
	Messages []message         `json:"messages"`
}

func chatCompletions(w http.ResponseWriter, body []byte, script Script, ids *atomic.Int64) (string, int) {
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeJSON(w, 400, map[string]any{"error": map[string]any{"message": err.Error(), "type": "invalid_request_error"}})
		return KindOther, -1
	}
	// Each model reply is one assistant message in the history, its tool
	// calls and text together.
	kind, index, step := script.answer(len(req.Tools) > 0, req.Messages)

	var calls []map[string]any
	for i, c := range step.Calls {
		args := c.Args
		if args == nil {
			args = map[string]any{}
		}
		calls = append(calls, map[string]any{"index": i, "id": fmt.Sprintf("call_fake_%06d", ids.Add(1)),
			"type": "function", "function": map[string]any{"name": c.Name, "arguments": mustJSON(args)}})
	}
	finish := "stop"
	if len(calls) > 0 {
		finish = "tool_calls"
	}
	id := fmt.Sprintf("chatcmpl_fake_%06d", ids.Add(1))
	usage := map[string]any{"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}
	message := map[string]any{"role": "assistant", "content": step.Text}
	if len(calls) > 0 {
		message["tool_calls"] = calls
	}

	if !req.Stream {
		writeJSON(w, 200, map[string]any{"id": id, "object": "chat.completion", "created": 0, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "message": message, "finish_reason": finish}}, "usage": usage})
		return kind, index
	}
	chunk := func(delta map[string]any, finish any, usage any) map[string]any {
		c := map[string]any{"id": id, "object": "chat.completion.chunk", "created": 0, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
		if usage != nil {
			c["usage"] = usage
		}
		return c
	}
	s := newSSE(w)
	s.event("", chunk(map[string]any{"role": "assistant", "content": ""}, nil, nil))
	if step.Text != "" {
		s.event("", chunk(map[string]any{"content": step.Text}, nil, nil))
	}
	if len(calls) > 0 {
		s.event("", chunk(map[string]any{"tool_calls": calls}, nil, nil))
	}
	s.event("", chunk(map[string]any{}, finish, usage))
	s.done()
	return kind, index
}

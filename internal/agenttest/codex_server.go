package agenttest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
)

// NewCodexServer starts a fake OpenAI Responses API for Codex CLI, which
// calls POST /v1/responses with stream:true. Other paths get harmless
// answers.
func NewCodexServer(t testing.TB, script Script) *Server {
	var ids atomic.Int64
	return startServer(t, func(w http.ResponseWriter, r *http.Request, body []byte) (string, int) {
		if r.Method == http.MethodPost && r.URL.Path == "/v1/responses" {
			return codexResponses(w, body, script, &ids)
		}
		if r.URL.Path == "/v1/models" {
			writeJSON(w, 200, map[string]any{"object": "list", "data": []any{}, "models": []any{}})
			return KindOther, -1
		}
		writeJSON(w, 200, map[string]any{})
		return KindOther, -1
	})
}

// CodexShell is a Codex call that runs a shell command. The fake server
// turns it into whichever shell tool the request offers: exec_command
// {cmd} (unified exec, the default), shell_command {command} or shell
// {command: [bash, -lc, ...]}.
func CodexShell(command string) Call {
	return Call{Name: "shell", Args: map[string]any{"command": command}}
}

// CodexPatch is a Codex apply_patch call with a patch in Codex's
// "*** Begin Patch" format. The fake server sends it as the apply_patch tool
// the request offers (freeform or JSON); when none is offered it sends it as
// an exec_command running apply_patch with the patch as a heredoc, which
// Codex intercepts and runs as its own apply_patch.
func CodexPatch(patch string) Call {
	return Call{Name: "apply_patch", Args: map[string]any{"input": patch}}
}

// CodexToolSearch is a call of Codex's tool_search, which finds the tools
// Codex defers (an MCP server's among them) and offers the ones found in
// the requests after it.
func CodexToolSearch(query string) Call {
	return Call{Name: "tool_search", Args: map[string]any{"query": query}}
}

// codexRequest is the part of a Responses request the fake reads.
type codexRequest struct {
	Model string `json:"model"`
	Tools []struct {
		Type string `json:"type"`
		Name string `json:"name"`
	} `json:"tools"`
	Input []struct {
		Type    string `json:"type"`
		Role    string `json:"role"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	} `json:"input"`
}

// codexOutputTypes are the input item types that a model reply put into the
// history.
var codexOutputTypes = map[string]bool{
	"function_call": true, "custom_tool_call": true, "local_shell_call": true,
	"reasoning": true, "web_search_call": true, "tool_search_call": true,
}

func codexResponses(w http.ResponseWriter, body []byte, script Script, ids *atomic.Int64) (string, int) {
	var req codexRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeJSON(w, 400, map[string]any{"error": map[string]any{"message": err.Error(), "type": "invalid_request_error"}})
		return KindOther, -1
	}
	kind, index := KindSide, -1
	step := Say(script.sideText())
	if len(req.Tools) > 0 {
		// A reply is a run of output items; tool outputs and user
		// messages separate the runs.
		var first []string
		replies, inReply := 0, false
		for _, it := range req.Input {
			out := codexOutputTypes[it.Type] || (it.Type == "message" && it.Role == "assistant")
			if out && !inReply {
				replies++
			}
			inReply = out
			if replies == 0 && it.Type == "message" && it.Role == "user" {
				for _, c := range it.Content {
					first = append(first, c.Text)
				}
			}
		}
		kind, index = KindStep, replies
		step = script.step(script.conversation(strings.Join(first, "\n")), replies)
	}
	tools := map[string]string{}
	for _, tl := range req.Tools {
		tools[tl.Name] = tl.Type
	}

	var items []map[string]any
	if step.Text != "" {
		items = append(items, map[string]any{
			"type": "message", "role": "assistant", "id": fmt.Sprintf("msg_fake_%06d", ids.Add(1)),
			"content": []any{map[string]any{"type": "output_text", "text": step.Text, "annotations": []any{}}},
		})
	}
	for _, c := range step.Calls {
		items = append(items, codexCall(c, tools, fmt.Sprintf("call_fake_%06d", ids.Add(1))))
	}
	respID := fmt.Sprintf("resp_fake_%06d", ids.Add(1))
	s := newSSE(w)
	s.event("response.created", map[string]any{"type": "response.created", "response": map[string]any{"id": respID}})
	for i, it := range items {
		s.event("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": i, "item": it})
		s.event("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": i, "item": it})
	}
	s.event("response.completed", map[string]any{"type": "response.completed", "response": map[string]any{
		"id": respID,
		"usage": map[string]any{"input_tokens": 100, "input_tokens_details": nil,
			"output_tokens": 10, "output_tokens_details": nil, "total_tokens": 110},
	}})
	return kind, index
}

// codexCall renders one scripted call as a Responses output item, in the
// shape the request's tools ask for.
func codexCall(c Call, tools map[string]string, callID string) map[string]any {
	fn := func(name string, args map[string]any) map[string]any {
		return map[string]any{"type": "function_call", "id": "fc_" + callID, "call_id": callID,
			"name": name, "arguments": mustJSON(args)}
	}
	str := func(k string) string { s, _ := c.Args[k].(string); return s }
	switch c.Name {
	case "shell":
		cmd := str("command")
		switch {
		case tools["exec_command"] != "":
			return fn("exec_command", map[string]any{"cmd": cmd})
		case tools["shell_command"] != "":
			return fn("shell_command", map[string]any{"command": cmd})
		default:
			return fn("shell", map[string]any{"command": []string{"bash", "-lc", cmd}})
		}
	case "tool_search":
		return map[string]any{"type": "tool_search_call", "id": "tsc_" + callID, "call_id": callID,
			"execution": "client", "status": "completed", "arguments": c.Args}
	case "apply_patch":
		patch := str("input")
		switch tools["apply_patch"] {
		case "custom":
			return map[string]any{"type": "custom_tool_call", "id": "ctc_" + callID, "call_id": callID,
				"name": "apply_patch", "input": patch}
		case "function":
			return fn("apply_patch", map[string]any{"input": patch})
		default:
			return codexCall(CodexShell("apply_patch <<'PATCH'\n"+patch+"PATCH\n"), tools, callID)
		}
	}
	args := c.Args
	if args == nil {
		args = map[string]any{}
	}
	if ns, tool, ok := codexMCPName(c.Name); ok {
		call := fn(tool, args)
		call["namespace"] = ns
		return call
	}
	return fn(c.Name, args)
}

// codexMCPName splits an MCP tool's name as Codex qualifies it,
// mcp__SERVER__TOOL, into the namespace Codex offers the server's tools
// in (tool_search's output: mcp__ and the server's name, each character
// outside [A-Za-z0-9_] made _) and the tool's own name, which is how the
// model calls it.
func codexMCPName(name string) (namespace, tool string, ok bool) {
	rest, ok := strings.CutPrefix(name, "mcp__")
	if !ok {
		return "", "", false
	}
	server, tool, ok := strings.Cut(rest, "__")
	if !ok || server == "" || tool == "" {
		return "", "", false
	}
	safe := strings.Map(func(r rune) rune {
		if r == '_' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9') {
			return r
		}
		return '_'
	}, server)
	return "mcp__" + safe, tool, true
}

package agenttest

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// NewGeminiServer starts a fake Gemini API (generativelanguage v1beta) for
// Gemini CLI. The CLI streams its turns with
// POST /v1beta/models/MODEL:streamGenerateContent?alt=sse and makes side
// calls with :generateContent, such as the model router's complexity
// classifier, which asks for JSON; side calls that ask for JSON get an
// object built from their response schema. :countTokens and model listing
// get harmless answers.
func NewGeminiServer(t testing.TB, script Script) *Server {
	return startServer(t, func(w http.ResponseWriter, r *http.Request, body []byte) (string, int) {
		_, method, _ := strings.Cut(r.URL.Path, ":")
		switch {
		case r.Method == http.MethodPost && method == "streamGenerateContent":
			return geminiGenerate(w, body, script, true)
		case r.Method == http.MethodPost && method == "generateContent":
			return geminiGenerate(w, body, script, false)
		case method == "countTokens":
			writeJSON(w, 200, map[string]any{"totalTokens": 100})
		case strings.HasSuffix(r.URL.Path, "/models"):
			writeJSON(w, 200, map[string]any{"models": []any{}})
		default:
			writeJSON(w, 200, map[string]any{})
		}
		return KindOther, -1
	})
}

// GeminiWriteFile is Gemini CLI's write_file call.
func GeminiWriteFile(path, content string) Call {
	return Call{Name: "write_file", Args: map[string]any{"file_path": path, "content": content}}
}

// GeminiShell is Gemini CLI's run_shell_command call.
func GeminiShell(command string) Call {
	return Call{Name: "run_shell_command", Args: map[string]any{"command": command, "description": "scripted command"}}
}

// geminiRequest is the part of a generateContent request the fake reads.
type geminiRequest struct {
	Contents []struct {
		Role  string `json:"role"`
		Parts []struct {
			Text string `json:"text"`
		} `json:"parts"`
	} `json:"contents"`
	Tools []struct {
		FunctionDeclarations []json.RawMessage `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig struct {
		ResponseMimeType   string         `json:"responseMimeType"`
		ResponseJSONSchema map[string]any `json:"responseJsonSchema"`
		ResponseSchema     map[string]any `json:"responseSchema"`
	} `json:"generationConfig"`
}

func geminiGenerate(w http.ResponseWriter, body []byte, script Script, stream bool) (string, int) {
	var req geminiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeJSON(w, 400, map[string]any{"error": map[string]any{"code": 400, "message": err.Error(), "status": "INVALID_ARGUMENT"}})
		return KindOther, -1
	}
	tools := 0
	for _, t := range req.Tools {
		tools += len(t.FunctionDeclarations)
	}
	kind, index := KindSide, -1
	var step Step
	switch {
	case tools > 0:
		var first []string
		models := 0
		for i, c := range req.Contents {
			if i == 0 && c.Role == "user" {
				for _, p := range c.Parts {
					first = append(first, p.Text)
				}
			}
			if c.Role == "model" {
				models++
			}
		}
		kind, index = KindStep, models
		step = script.step(script.conversation(strings.Join(first, "\n")), models)
	case req.GenerationConfig.ResponseMimeType == "application/json":
		schema := req.GenerationConfig.ResponseJSONSchema
		if schema == nil {
			schema = req.GenerationConfig.ResponseSchema
		}
		step = Say(mustJSON(fromSchema(schema)))
	default:
		step = Say(script.sideText())
	}

	var parts []any
	if step.Text != "" {
		parts = append(parts, map[string]any{"text": step.Text})
	}
	for _, c := range step.Calls {
		args := c.Args
		if args == nil {
			args = map[string]any{}
		}
		parts = append(parts, map[string]any{"functionCall": map[string]any{"name": c.Name, "args": args}})
	}
	resp := map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": parts},
			"finishReason": "STOP",
			"index":        0,
		}},
		"usageMetadata": map[string]any{"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110},
	}
	if !stream {
		writeJSON(w, 200, resp)
		return kind, index
	}
	newSSE(w).event("", resp)
	return kind, index
}

// fromSchema builds the smallest value that fits a (Gemini or JSON)
// schema: the first enum value, empty arrays, every object property. The
// CLI's JSON side calls (model routing, next-speaker checks) then parse and
// go on with their defaults.
func fromSchema(s map[string]any) any {
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	typ, _ := s["type"].(string)
	switch strings.ToLower(typ) {
	case "object":
		out := map[string]any{}
		props, _ := s["properties"].(map[string]any)
		for k, v := range props {
			sub, _ := v.(map[string]any)
			out[k] = fromSchema(sub)
		}
		return out
	case "array":
		return []any{}
	case "integer", "number":
		return 1
	case "boolean":
		return false
	default:
		return "fake"
	}
}

package agenttest

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// sseWriter writes a server-sent event stream. All three agents stream
// their model replies this way.
type sseWriter struct {
	w http.ResponseWriter
}

func newSSE(w http.ResponseWriter) sseWriter {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return sseWriter{w}
}

// event writes one event; an empty name writes a data-only event (Gemini's
// form).
func (s sseWriter) event(name string, data any) {
	b, err := json.Marshal(data)
	if err != nil {
		panic(err) // only maps and slices built in this package are written
	}
	if name != "" {
		fmt.Fprintf(s.w, "event: %s\n", name)
	}
	fmt.Fprintf(s.w, "data: %s\n\n", b)
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
}

// done ends an OpenAI stream: Chat Completions clients wait for this
// sentinel, which is not JSON.
func (s sseWriter) done() {
	fmt.Fprint(s.w, "data: [DONE]\n\n")
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
}

// writeJSON answers with a JSON document.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// mustJSON encodes v, which is built in this package and always encodes.
func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

package agenttest

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestStepWaitHoldsTheReply: a step's Wait runs before its reply is sent
// and the reply waits for it, which is what lets a test hold one agent at a
// step until another has got somewhere. A step with only a Wait still
// waits, then gives the final text.
func TestStepWaitHoldsTheReply(t *testing.T) {
	for name, newServer := range map[string]func(testing.TB, Script) *Server{
		"claude": NewClaudeServer, "codex": NewCodexServer, "chat": NewChatServer, "gemini": NewGeminiServer,
	} {
		t.Run(name, func(t *testing.T) {
			entered, release := make(chan struct{}), make(chan struct{})
			srv := newServer(t, Script{Steps: []Step{{Wait: func() {
				close(entered)
				<-release
			}}}, Final: "AFTER-THE-WAIT"})
			path, body := "/v1/messages", `{"model":"m","stream":true,"tools":[{}],"messages":[{"role":"user","content":"go"}]}`
			switch name {
			case "codex":
				path, body = "/v1/responses", `{"model":"m","tools":[{"type":"function","name":"f"}],"input":[{"type":"message","role":"user","content":[{"text":"go"}]}]}`
			case "chat":
				path, body = "/v1/chat/completions", `{"model":"m","tools":[{}],"messages":[{"role":"user","content":"go"}]}`
			case "gemini":
				path, body = "/v1beta/models/m:generateContent", `{"contents":[{"role":"user","parts":[{"text":"go"}]}],"tools":[{"functionDeclarations":[{}]}]}`
			}
			reply := make(chan string, 1)
			go func() {
				resp, err := http.Post(srv.URL+path, "application/json", bytes.NewBufferString(body))
				if err != nil {
					reply <- err.Error()
					return
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				reply <- string(b)
			}()
			select {
			case <-entered:
			case got := <-reply:
				t.Fatalf("the server answered without running the step's Wait:\n%s", got)
			}
			if got := srv.Requests(); len(got) != 0 {
				t.Fatalf("a request was answered while its step waited: %v", got)
			}
			close(release)
			if got := <-reply; !strings.Contains(got, "AFTER-THE-WAIT") {
				t.Errorf("the reply after the wait has no final text:\n%s", got)
			}
			if steps := srv.Steps(); len(steps) != 1 || steps[0].Step != 0 {
				t.Errorf("answered steps: %v, want step 0 once", steps)
			}
		})
	}
}

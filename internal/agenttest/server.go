package agenttest

import (
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Request is one HTTP request a fake model server received.
type Request struct {
	Method string
	Path   string
	Query  string
	Header http.Header
	Body   []byte
	// Kind says how the server answered: KindStep, KindSide or KindOther.
	Kind string
	// Step is the index of the scripted step that answered, or -1.
	Step int
}

// Kinds of request, as recorded in Request.Kind.
const (
	// KindStep is a model call answered with a scripted step.
	KindStep = "step"
	// KindSide is a model call that offered no tools (a title, a summary,
	// a routing decision), answered with Script.SideText or, when it asks
	// for JSON, an object that fits its schema. It consumes no step.
	KindSide = "side"
	// KindOther is any other endpoint (token counting, model listing),
	// answered harmlessly.
	KindOther = "other"
)

// Server is a fake model server on 127.0.0.1. Its methods are safe to call
// while the agent is running.
type Server struct {
	// URL is the base URL to give the agent, without a trailing slash.
	URL string

	mu   sync.Mutex
	reqs []Request
}

// handlerFunc answers one request and says how it did (Kind and Step of the
// recorded Request).
type handlerFunc func(w http.ResponseWriter, r *http.Request, body []byte) (kind string, step int)

// startServer listens on 127.0.0.1:0 (never another interface: the agents
// are real programs and the fake must not be reachable from elsewhere),
// records each request and hands it to h. The server closes when the test
// ends.
func startServer(t testing.TB, h handlerFunc) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("agenttest: listen: %v", err)
	}
	s := &Server{URL: "http://" + ln.Addr().String()}
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		kind, step := h(w, r, body)
		s.mu.Lock()
		s.reqs = append(s.reqs, Request{
			Method: r.Method,
			Path:   r.URL.Path,
			Query:  r.URL.RawQuery,
			Header: r.Header.Clone(),
			Body:   body,
			Kind:   kind,
			Step:   step,
		})
		s.mu.Unlock()
	})}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	return s
}

// Requests returns a copy of every request received so far, in the order
// their answers were finished.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Steps returns the requests that were answered with a scripted step.
func (s *Server) Steps() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Kind == KindStep {
			out = append(out, r)
		}
	}
	return out
}

// Dump describes every request received, for a failing test's log.
func (s *Server) Dump() string {
	var b strings.Builder
	for i, r := range s.Requests() {
		b.WriteString(describe(i, r))
	}
	return b.String()
}

func describe(i int, r Request) string {
	body := string(r.Body)
	if len(body) > 300 {
		body = body[:300] + "..."
	}
	q := ""
	if r.Query != "" {
		q = "?" + r.Query
	}
	return strings.Join([]string{
		strconv.Itoa(i), r.Kind, "step=" + strconv.Itoa(r.Step), r.Method, r.Path + q, body,
	}, " ") + "\n"
}

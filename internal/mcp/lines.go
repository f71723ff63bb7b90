package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// lines hands the SDK only the lines of the client's input that are
// JSON-RPC 2.0 messages, and answers each other line itself: a parse
// error (-32700) for a line that is not JSON, an invalid request
// (-32600) for JSON that is no message. The SDK's stdio transport ends
// the session at the first message it cannot decode, before answering
// anything: one stray line (a client's bug, a shell's echo) would take
// the model's tools away for the whole session. Messages are one a line
// (the MCP stdio transport); blank lines are no messages and are dropped.
type lines struct {
	in io.Reader
	// reply writes an answer of lines' own, whole, between the SDK's.
	reply func([]byte)
	// part is the line read whose newline has not come yet; ready is
	// what was read and checked, not yet handed over.
	part, ready []byte
	err         error
}

func (l *lines) Read(p []byte) (int, error) {
	for len(l.ready) == 0 && l.err == nil {
		buf := make([]byte, 32<<10)
		n, err := l.in.Read(buf)
		l.part = append(l.part, buf[:n]...)
		for {
			i := bytes.IndexByte(l.part, '\n')
			if i < 0 {
				break
			}
			l.check(l.part[:i+1])
			l.part = l.part[i+1:]
		}
		if err != nil {
			if len(l.part) > 0 {
				l.check(append(l.part, '\n'))
				l.part = nil
			}
			l.err = err
		}
	}
	if len(l.ready) > 0 {
		n := copy(p, l.ready)
		l.ready = l.ready[n:]
		return n, nil
	}
	return 0, l.err
}

// check passes a whole line on, or answers it.
func (l *lines) check(line []byte) {
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	if !json.Valid(line) {
		l.refuse("null", -32700, "parse error: this line is not JSON")
		return
	}
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  json.RawMessage `json:"method"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	err := json.Unmarshal(line, &m)
	id := "null" // JSON-RPC: null when the id cannot be told
	if err == nil && len(m.ID) > 0 && (m.ID[0] == '"' || m.ID[0] == '-' || m.ID[0] >= '0' && m.ID[0] <= '9') {
		id = string(m.ID)
	}
	var method string
	switch {
	case err != nil || m.JSONRPC != "2.0":
		l.refuse(id, -32600, `invalid request: not a JSON-RPC 2.0 message (an object with "jsonrpc": "2.0")`)
	case len(m.Method) > 0 && json.Unmarshal(m.Method, &method) != nil:
		l.refuse(id, -32600, "invalid request: its method is not a string")
	case len(m.Method) == 0 && (len(m.ID) == 0 || len(m.Result) == 0 && len(m.Error) == 0):
		l.refuse(id, -32600, "invalid request: no method, and no id with a result or an error")
	default:
		l.ready = append(l.ready, line...)
	}
}

func (l *lines) refuse(id string, code int, message string) {
	text, _ := json.Marshal(message)
	l.reply(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%s}}`+"\n", id, code, text))
}

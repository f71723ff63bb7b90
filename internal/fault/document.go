package fault

// Document is the JSON error document of DESIGN section 3,
// {"error": {"code", "message", "data", "hints"}}: what a program that
// asked for JSON gets instead of the words on stderr, from the command
// line's --json and from the MCP server's tools alike.
type Document struct {
	Error DocumentError `json:"error"`
}

// DocumentError is the error inside a Document.
type DocumentError struct {
	Code    Code   `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data"`
	// Hints are what to do next, the hint: lines a person reads; a model
	// reading the document needs them as much.
	Hints []string `json:"hints,omitempty"`
}

// Document returns e as the JSON error document.
func (e *Error) Document() Document {
	return Document{DocumentError{Code: e.Code, Message: e.Message, Data: e.Data, Hints: e.Hints}}
}

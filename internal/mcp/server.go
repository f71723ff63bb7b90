// Package mcp is `git checkpoint mcp`: a Model Context Protocol server on
// standard input and output that offers an agent's model the checkpoints
// of the tree it works in (DESIGN section 12). It is built into a binary
// of its own, git-checkpoint-mcp, which `git checkpoint mcp` starts: a
// front end beside the command line, it opens working trees through
// package workspace as every command does. Its tools call the same
// packages as the command line (capture, turns, rewind) and answer with
// the command line's JSON documents.
//
// The safety rule: the model may look (list, log, diff) and plan a rewind,
// but applies one only when the person enabled it
// (checkpoint.mcpRewind=true), and then only the exact plan it was shown,
// never over a person's edits.
package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"slices"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/workspace"
)

// Name is the server's name, as agents' configurations register it and
// as they prefix its tools (Claude Code: mcp__git-checkpoint__diff).
const Name = "git-checkpoint"

// Tree is the working tree one tool call works with, opened for that
// call: HEAD, the configuration (checkpoint.mcpRewind above all) and the
// store may change between two calls of one session.
type Tree = workspace.Workspace

// Server is the MCP server of one agent session.
type Server struct {
	// Open opens the working tree the server runs in, once per tool call.
	Open    func(context.Context) (*Tree, error)
	Version string

	mu sync.Mutex
	// plans are the rewinds this server planned, by plan id, each as the
	// request that made it: rewind_apply takes a plan id alone and must
	// apply exactly what rewind_plan showed.
	plans map[string]planned
}

// Run is git-checkpoint-mcp's server (cli.Serve): one agent session on in
// and out, opening the working tree with open for each tool call.
func Run(ctx context.Context, version string, open func(context.Context) (*Tree, error), in io.Reader, out io.Writer) error {
	return (&Server{Open: open, Version: version}).Serve(ctx, in, out)
}

// Serve answers one client on in and out until it goes away.
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	srv := sdk.NewServer(&sdk.Implementation{Name: Name, Title: "git-checkpoint", Version: s.Version},
		&sdk.ServerOptions{Instructions: instructions})
	s.addTools(srv)
	// Run returns nil when the agent closes its end: the session is over.
	d := newDrain(in, out)
	d.in = &lines{in: in, reply: d.reply}
	return srv.Run(ctx, &sdk.IOTransport{Reader: d, Writer: d})
}

// instructions tell the model what the server is for and its one rule.
const instructions = `Checkpoints of the working tree this agent edits, taken at every turn and tool call.
list_checkpoints and log_turns show them (log_turns by prompt), diff shows what changed,
rewind_plan shows what restoring one would change, and rewind_apply applies that exact
plan, but only when the person enabled it (a setting of theirs, which the model never changes) and never
over a person's own edits. Otherwise show the person the plan; they run git rewind.`

// tool adds a tool whose handler returns a document or an error: the
// document is the result, as the command line's --json prints it (and as
// structured content); an error is a tool error carrying the JSON error
// document, hints included, so that the model reads what to do next.
func tool[In any](srv *sdk.Server, t *sdk.Tool, h func(context.Context, In) (any, error)) {
	t.InputSchema = inputSchema[In]()
	sdk.AddTool(srv, t, func(ctx context.Context, _ *sdk.CallToolRequest, in In) (*sdk.CallToolResult, any, error) {
		doc, err := h(ctx, in)
		if err != nil {
			fe := fault.As(fault.Explain(err))
			return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: text(fe.Document())}}}, nil, nil
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text(doc)}}}, doc, nil
	})
}

// inputSchema is the JSON schema of a tool's arguments, from In's fields
// and their jsonschema tags, in the plain form every agent's client
// accepts: a list is an "array", not "array or null" (Gemini CLI hands
// schemas on to its model, whose schema dialect has no type lists), and
// outside lists its choices.
func inputSchema[In any]() *jsonschema.Schema {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		panic(err) // In is one of this package's types: a bug, seen by every test
	}
	for name, p := range s.Properties {
		if slices.Equal(p.Types, []string{"null", "array"}) {
			p.Type, p.Types = "array", nil
		}
		if name == "outside" {
			p.Enum = []any{outsideRefuse, outsideKeep}
		}
	}
	return s
}

// text is v as the command line's --json writes it: indented, with & < >
// as they are.
func text(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return b.String()
}

func (s *Server) addTools(srv *sdk.Server) {
	readOnly := &sdk.ToolAnnotations{ReadOnlyHint: true}
	tool(srv, &sdk.Tool{Name: "checkpoint", Annotations: &sdk.ToolAnnotations{IdempotentHint: true, DestructiveHint: new(false)},
		Description: "Take a checkpoint of the whole working tree now (what `git checkpoint -m LABEL` does). " +
			"Returns its record; an unchanged tree without a label reuses the newest checkpoint."}, s.checkpoint)
	tool(srv, &sdk.Tool{Name: "list_checkpoints", Annotations: readOnly,
		Description: "List checkpoints, newest first, as `git checkpoint list --json` does: id (k<n>), reason, turn, " +
			"session, agent, time, label, changes."}, s.list)
	tool(srv, &sdk.Tool{Name: "log_turns", Annotations: readOnly,
		Description: "List turns, newest first, as `git checkpoint log --json` does: each turn's prompt, " +
			"its start and end checkpoints and what it changed."}, s.log)
	tool(srv, &sdk.Tool{Name: "diff", Annotations: readOnly,
		Description: "The unified diff from checkpoint `from` to checkpoint `to` (default: the working tree now), " +
			"optionally only of `paths`. Cut at 64 KiB, with a marker line and truncated=true when cut."}, s.diff)
	tool(srv, &sdk.Tool{Name: "rewind_plan", Annotations: readOnly,
		Description: "Plan a rewind and change nothing (`git rewind --dry-run --json`): to checkpoint `id`, or " +
			"reversing one turn (`only`: t<n> or kA..kB) or a session (`session`), optionally only `paths`. " +
			"Returns the plan id (p1-...), the files it changes and whose change each is, the paths it leaves, " +
			"and whether rewind_apply is enabled here."}, s.plan)
	tool(srv, &sdk.Tool{Name: "rewind_apply", Annotations: &sdk.ToolAnnotations{DestructiveHint: new(true)},
		Description: "Apply exactly the plan `plan` that rewind_plan returned, refused when the tree changed since. " +
			"Works only when the person enabled it (checkpoint.mcpRewind in their global git configuration, never changed by the model); never overwrites " +
			"a person's edits. A safety checkpoint is taken first: the result names the command that undoes it."}, s.apply)
}

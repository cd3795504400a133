// Package tools is the MCP face of debugpy-guard: the catalogue of debugpy
// tools with their schemas, annotations and categories, and the handlers that
// drive dap sessions.
//
// Register is the only way to put the tools on a server, and it takes the
// policy gate: every handler is wrapped by it, so no call reaches debugpy
// without a decision.
package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/debugpy-guard/debugpy-guard/dap"
	"github.com/debugpy-guard/debugpy-guard/engine"
)

// Categories of tools, as policies see them.
const (
	Read    = "read"
	Write   = "write"
	Execute = "execute"
)

// Call is one tool call as the gate sees it, before it runs.
type Call struct {
	Tool     string
	Category string
	// Arguments are the canonical encoding of the arguments as they were
	// decoded (args.go): the only argument bytes anyone sees. When the
	// arguments were refused (Malformed), they are the bytes as sent.
	Arguments json.RawMessage
	Malformed error           // why the arguments were refused before any module saw them
	Derived   *engine.Derived // code, paths and addresses, as they will be used
	Session   string          // the debug session named in the arguments, if any
	// Debug is the debug session the call acts on, looked up once when its
	// arguments were read: the handler acts on this one (nil when there is
	// none).
	Debug   *dap.Session
	Request mcp.CallToolRequest
}

// Gate decides a call and, when it may go on, runs it with run. It may also
// rewrite or withhold the result. It is the policy engine's seat; tools owns
// this interface so that the engine need not know about mcp-go's handlers.
type Gate interface {
	Guard(ctx context.Context, call Call, run func(context.Context) *mcp.CallToolResult) *mcp.CallToolResult
}

// Spec describes one tool of the catalogue.
type Spec struct {
	Tool     mcp.Tool
	Category string
	args     reflect.Type // the argument struct the call is read into
	prepare  func(ctx context.Context, ts *Toolset, raw json.RawMessage) (*prepared, error)
}

// prepared is a call read once (args.go): its canonical arguments, what the
// host derived from them, and the handler bound to the decoded value.
type prepared struct {
	arguments json.RawMessage
	session   string
	pin       *pin // the debug session the call acts on, for a tool that names one
	derived   *engine.Derived
	run       func(ctx context.Context) (*mcp.CallToolResult, error)
}

// category is the call's category: execute when it carries Python, which
// debugpy will run, whatever the tool's own (docs/SECURITY.md).
func (p *prepared) category(tool string) string {
	if p.derived != nil && len(p.derived.Code) > 0 {
		return Execute
	}
	return tool
}

// Toolset holds the state the handlers share: the debug sessions.
type Toolset struct {
	Sessions *Sessions
	// NoDelay loads the one-write fix into the programs debugpy-guard
	// starts (launch, attach by PID); on by default (dap/nodelay.go).
	NoDelay bool
	// RequestTimeout bounds one DAP round trip of a handler (0:
	// DefaultRequestTimeout); serve reads DEBUGPY_GUARD_REQUEST_TIMEOUT.
	RequestTimeout time.Duration
	log            *slog.Logger
}

// NewToolset makes an empty toolset.
func NewToolset(log *slog.Logger) *Toolset {
	if log == nil {
		log = slog.Default()
	}
	return &Toolset{Sessions: NewSessions(), NoDelay: true, log: log}
}

// Catalogue lists every tool, in a stable order.
func Catalogue() []Spec { return catalogue }

// Names lists the names of the catalogue's tools, in order.
func Names() []string {
	names := make([]string, len(catalogue))
	for i, s := range catalogue {
		names[i] = s.Tool.Name
	}
	return names
}

// Lookup finds a tool of the catalogue by name.
func Lookup(name string) (Spec, bool) {
	for _, s := range catalogue {
		if s.Tool.Name == name {
			return s, true
		}
	}
	return Spec{}, false
}

// Instructions are what the server tells the model in its initialize
// result: how a debugging session goes here, and that a policy judges
// every call.
const Instructions = `Debug Python programs with debugpy. A session: debugpy_launch a program (it stops on entry) or debugpy_session_start to attach to one started with python -m debugpy --listen HOST:PORT; debugpy_set_breakpoint with an absolute file path and a line; debugpy_continue, then debugpy_wait_for_stop; debugpy_stack_trace, debugpy_variables (an entry marked [ref N] expands with variables_reference N) and debugpy_evaluate to inspect; debugpy_output for what the program printed; debugpy_session_stop at the end. A policy judges every call: a denied call says why, and one that needs a person's approval waits for it (or says how to ask); plain reads are allowed, running code in the program needs approval, and secrets are masked in results.`

// NewServer makes the MCP server of debugpy-guard with every tool of the
// catalogue behind gate. Tools for which hidden says true are left out of
// tools/list; a call to one still reaches the gate, which denies and
// records it. hidden is asked on every list, so a reload can change it.
func NewServer(version string, ts *Toolset, gate Gate, hidden func(tool string) bool, opts ...server.ServerOption) *server.MCPServer {
	hooks := &server.Hooks{}
	if hidden != nil {
		hooks.AddAfterListTools(func(ctx context.Context, id any, _ *mcp.ListToolsRequest, res *mcp.ListToolsResult) {
			kept := res.Tools[:0]
			for _, t := range res.Tools {
				if !hidden(t.Name) {
					kept = append(kept, t)
				}
			}
			res.Tools = kept
		})
	}
	opts = append([]server.ServerOption{server.WithToolCapabilities(true), server.WithHooks(hooks),
		server.WithInstructions(Instructions)}, opts...)
	srv := server.NewMCPServer("debugpy-guard", version, opts...)
	Register(srv, ts, gate)
	return srv
}

// PrepareCall reads a call's arguments as the gate does (engine.Prepare):
// strictly, canonically, with the derived facts, the category raised to
// execute when the call carries code. It knows no debug session, so no
// path belongs to one: for `policy test` and `policy eval`.
func PrepareCall(ctx context.Context, tool string, args json.RawMessage) (engine.Call, error) {
	spec, ok := Lookup(tool)
	if !ok {
		return engine.Call{Tool: tool, Arguments: args}, fmt.Errorf("no tool %s (debugpy-guard tools lists them)", tool)
	}
	call := engine.Call{Tool: tool, Category: spec.Category, Arguments: args, Time: time.Now()}
	p, err := spec.prepare(ctx, detached, args)
	if err != nil {
		return call, err
	}
	call.Arguments, call.Derived, call.Category = p.arguments, p.derived, p.category(spec.Category)
	return call, nil
}

// detached is a toolset with no debug session, for PrepareCall.
var detached = NewToolset(slog.New(slog.DiscardHandler))

// Register adds every tool of the catalogue to srv, each behind gate. It
// panics without a gate: there is no unguarded path.
func Register(srv *server.MCPServer, ts *Toolset, gate Gate) {
	if gate == nil {
		panic("tools.Register: a gate is required")
	}
	for _, spec := range catalogue {
		srv.AddTool(spec.Tool, handler(spec, ts, gate))
	}
}

func handler(spec Spec, ts *Toolset, gate Gate) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		raw, err := rawArguments(req)
		if err != nil {
			return errorResult(err.Error()), nil
		}
		call := Call{Tool: spec.Tool.Name, Category: spec.Category, Arguments: raw, Request: req}
		var p *prepared
		if len(raw) > maxArguments {
			call.Malformed = malformed("the arguments are %d bytes, over the %d-byte limit", len(raw), maxArguments)
		} else if p, err = spec.prepare(ctx, ts, raw); err != nil {
			var m *malformedError
			if !errors.As(err, &m) {
				err = malformed("%v", err)
			}
			call.Malformed = err
		} else {
			call.Arguments, call.Session, call.Derived = p.arguments, p.session, p.derived
			if p.pin != nil {
				call.Debug = p.pin.s
			}
			call.Category = p.category(spec.Category)
		}
		ctx = withRequest(ctx, req)
		res := gate.Guard(ctx, call, func(ctx context.Context) *mcp.CallToolResult {
			if call.Malformed != nil { // a gate that runs it anyway (tests): the handler never sees such arguments
				return errorResult(fmt.Sprintf("%s: %v", spec.Tool.Name, call.Malformed))
			}
			return run(ctx, spec, ts, p)
		})
		if res == nil {
			res = errorResult("denied: the policy gate returned no result")
		}
		return res, nil
	}
}

// run calls a handler and turns every error, and any panic, into an isError
// result: the agent gets a message it can act on, never a protocol error.
func run(ctx context.Context, spec Spec, ts *Toolset, p *prepared) (res *mcp.CallToolResult) {
	defer func() {
		if r := recover(); r != nil {
			ts.log.Error("tool handler panicked", "tool", spec.Tool.Name, "panic", r)
			res = errorResult(fmt.Sprintf("%s failed inside debugpy-guard (%v); this is a bug, please report it", spec.Tool.Name, r))
		}
	}()
	res, err := p.run(ctx)
	if err != nil {
		return errorResult(err.Error())
	}
	return res
}

func rawArguments(req mcp.CallToolRequest) (json.RawMessage, error) {
	a := req.GetRawArguments()
	if a == nil {
		return json.RawMessage("{}"), nil
	}
	if r, ok := a.(json.RawMessage); ok {
		if t := bytes.TrimSpace(r); len(t) == 0 || string(t) == "null" {
			return json.RawMessage("{}"), nil
		}
		return r, nil
	}
	raw, err := json.Marshal(a)
	if err != nil {
		return nil, fmt.Errorf("arguments: %v", err)
	}
	if string(raw) == "null" {
		return json.RawMessage("{}"), nil
	}
	return raw, nil
}

// Text joins the text contents of a result.
func Text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func errorResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{mcp.NewTextContent(text)}}
}

type reqKey struct{}

func withRequest(ctx context.Context, req mcp.CallToolRequest) context.Context {
	return context.WithValue(ctx, reqKey{}, req)
}

// progress sends an MCP progress notification when the client asked for them.
func progress(ctx context.Context, done, total float64, msg string) {
	req, ok := ctx.Value(reqKey{}).(mcp.CallToolRequest)
	if !ok || req.Params.Meta == nil || req.Params.Meta.ProgressToken == nil {
		return
	}
	srv := server.ServerFromContext(ctx)
	if srv == nil {
		return
	}
	_ = srv.SendNotificationToClient(ctx, "notifications/progress", map[string]any{
		"progressToken": req.Params.Meta.ProgressToken, "progress": done, "total": total, "message": msg,
	})
}

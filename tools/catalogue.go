package tools

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/debugpy-guard/debugpy-guard/dap"
)

// DefaultRequestTimeout bounds one DAP round trip made by a handler, unless
// Toolset.RequestTimeout says otherwise.
const DefaultRequestTimeout = 15 * time.Second

// Target names the debug session a call is for.
type Target struct {
	Session string `json:"session,omitempty" jsonschema:"name of the debug session; may be left out when only one is open"`
}

func (t Target) debugSession() string { return t.Session }

type annot struct{ readOnly, destructive, idempotent, openWorld bool }

func b(v bool) *bool { return &v }

// def builds a Spec from a typed handler: the input and output schemas come
// from A and O, arguments are decoded strictly into A, and the handler's
// value becomes structuredContent beside its text.
func def[A, O any](name, title, desc, category string, an annot, fn func(context.Context, *Toolset, A) (O, string, error)) Spec {
	outSchema := mcp.WithOutputSchema[O]()
	if raw, ok := rawOutputSchemas[name]; ok {
		outSchema = mcp.WithRawOutputSchema(json.RawMessage(raw))
	}
	t := mcp.NewTool(name,
		mcp.WithToolTitle(title),
		mcp.WithDescription(desc),
		mcp.WithInputSchema[A](),
		outSchema,
		mcp.WithToolAnnotation(mcp.ToolAnnotation{Title: title, ReadOnlyHint: b(an.readOnly),
			DestructiveHint: b(an.destructive), IdempotentHint: b(an.idempotent), OpenWorldHint: b(an.openWorld)}),
	)
	t.Meta = &mcp.Meta{AdditionalFields: map[string]any{"category": category}}
	shallowOutput(&t)
	return Spec{Tool: t, Category: category, args: reflect.TypeFor[A](), prepare: func(ctx context.Context, ts *Toolset, raw json.RawMessage) (*prepared, error) {
		var a A
		canonical, err := decodeStrict(raw, &a)
		if err != nil {
			return nil, err
		}
		p := &prepared{arguments: canonical}
		if t, ok := any(a).(interface{ debugSession() string }); ok {
			p.session = t.debugSession()
			s, err := ts.Sessions.Get(p.session)
			p.pin = &pin{s, err}
		}
		pinned := func(ctx context.Context) context.Context {
			if p.pin == nil {
				return ctx
			}
			return context.WithValue(ctx, pinKey{}, *p.pin)
		}
		if d, ok := any(&a).(deriver); ok {
			if p.derived, err = d.derive(pinned(ctx), ts); err != nil {
				return p, err
			}
		}
		// The handler runs the value that was decoded and derived, on the
		// debug session looked up then: no second reading of either.
		p.run = func(ctx context.Context) (*mcp.CallToolResult, error) {
			out, text, err := fn(pinned(ctx), ts, a)
			if err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{StructuredContent: out, Content: []mcp.Content{mcp.NewTextContent(text)}}, nil
		}
		return p, nil
	}}
}

// rawOutputSchemas are written by hand where the generator cannot follow the
// type: a variable's children are variables.
var rawOutputSchemas = map[string]string{
	"debugpy_variables": `{"type":"object","$defs":{"variable":{"type":"object","properties":{
		"name":{"type":"string"},"value":{"type":"string"},"type":{"type":"string"},
		"evaluate_name":{"type":"string"},"variables_reference":{"type":"integer"},
		"children":{"type":"array","items":{"$ref":"#/$defs/variable"}},
		"truncated":{"type":"boolean","description":"more children than max_items"}},
		"required":["name","value"]}},
	"properties":{"scope":{"type":"string"},"frame_id":{"type":"integer"},
		"variables_reference":{"type":"integer"},
		"variables":{"type":"array","items":{"$ref":"#/$defs/variable"}},
		"truncated":{"type":"boolean"}},
	"required":["variables_reference","variables"]}`,
}

// withSession makes a handler of a tool that works on an open debug
// session: the session its arguments name is looked up first, and its
// absence is the call's error (the opening every such handler shared).
func withSession[A interface{ debugSession() string }, O any](fn func(context.Context, *Toolset, *dap.Session, A) (O, string, error)) func(context.Context, *Toolset, A) (O, string, error) {
	return func(ctx context.Context, ts *Toolset, a A) (O, string, error) {
		s, err := ts.session(ctx, a.debugSession())
		if err != nil {
			var none O
			return none, "", err
		}
		return fn(ctx, ts, s, a)
	}
}

var (
	readOnly = annot{readOnly: true, idempotent: true}
	control  = annot{}
	starts   = annot{openWorld: true}
)

var catalogue = []Spec{
	def("debugpy_session_start", "Attach to debugpy",
		"Attach to a program started with `python -m debugpy --listen HOST:PORT` (add --wait-for-client to stop it until attached; stop_on_entry, breakpoints and exception_filters are set before it runs). path_mappings translate local directories to the debuggee's and back (what debugpy names under a local one is then the session's: the default policy asks a person).",
		Write, starts, sessionStart),
	def("debugpy_launch", "Launch under debugpy",
		"Run a Python program or module under debugpy. It stops on entry by default, so breakpoints can be set before it runs: then call debugpy_continue.",
		Execute, starts, launch),
	def("debugpy_attach_pid", "Attach to a Python process",
		"Inject debugpy into a running Python process by PID and attach (needs gdb and ptrace permission).",
		Execute, starts, attachPID),
	def("debugpy_session_stop", "End a debug session",
		"Disconnect from debugpy. With terminate=false (the default) the program runs on; with terminate=true it is ended.",
		Write, annot{destructive: true}, withSession(sessionStop)),
	def("debugpy_session_status", "Session status",
		"Connection state, where each stopped thread is (thread, frame, file, line, reason), breakpoints, path mappings, process, output cursor, and whether debugpy's speed fix is on (nodelay).",
		Read, readOnly, withSession(sessionStatus)),
	def("debugpy_sessions", "List debug sessions", "The open debug sessions and their state.", Read, readOnly, sessions),
	def("debugpy_set_breakpoint", "Set a breakpoint",
		"Set a breakpoint at file:line; optional condition and hit_condition (Python expressions), log_message turns it into a logpoint ({expr} interpolated). Returns whether debugpy verified it and the line it bound.",
		Write, control, setBreakpoint),
	def("debugpy_remove_breakpoint", "Remove a breakpoint", "Remove a breakpoint by breakpoint_id, or every breakpoint at file + line.",
		Write, annot{destructive: true, idempotent: true}, withSession(removeBreakpoint)),
	def("debugpy_list_breakpoints", "List breakpoints", "The breakpoints of the session, with their verified flag and bound line.", Read, readOnly, withSession(listBreakpoints)),
	def("debugpy_set_exception_breakpoints", "Break on exceptions",
		"Replace the exception filters: raised (every raise), uncaught, userUnhandled. An empty list turns them off.",
		Write, annot{idempotent: true}, withSession(setExceptionBreakpoints)),
	def("debugpy_continue", "Continue", "Resume the program; waits up to wait_s for the next stop and returns it, or says it is running or has exited.", Write, control, withSession(resumeTool("continue"))),
	def("debugpy_pause", "Pause", "Pause the program; waits up to wait_s for the stop (a thread in time.sleep stops only when the sleep returns).", Write, control, withSession(resumeTool("pause"))),
	def("debugpy_step_over", "Step over", "Run to the next line of the current function; returns the new stop.", Write, control, withSession(resumeTool("over"))),
	def("debugpy_step_in", "Step in", "Step into the call on the current line; returns the new stop.", Write, control, withSession(resumeTool("in"))),
	def("debugpy_step_out", "Step out", "Run until the current function returns; returns the new stop.", Write, control, withSession(resumeTool("out"))),
	def("debugpy_wait_for_stop", "Wait for a stop",
		"Wait up to timeout_s for the program to stop (breakpoint, exception, pause) or exit, with progress notifications while it waits.",
		Read, readOnly, withSession(waitForStop)),
	def("debugpy_threads", "Threads", "The debuggee's threads; with frames > 0, the top frames of each stopped thread.", Read, readOnly, withSession(threads)),
	def("debugpy_stack_trace", "Stack trace", "The frames of a stopped thread (default: the one that stopped last), innermost first; frame ids feed debugpy_variables and debugpy_evaluate.", Read, readOnly, withSession(stackTrace)),
	def("debugpy_variables", "Variables",
		"The variables of a frame's scope (locals or globals), or the children of a variables_reference, expanded to depth, at most max_items per level, with types. [ref N]: pass N as variables_reference to expand that entry.",
		Read, readOnly, withSession(variables)),
	def("debugpy_evaluate", "Evaluate", "Evaluate a Python expression in a frame (context watch, hover or clipboard), or run a statement (context repl).", Execute, control, withSession(evaluate)),
	def("debugpy_set_variable", "Set a variable", "Assign value (evaluated as Python) to a variable of a frame's scope or of a variables_reference.", Execute, control, withSession(setVariable)),
	def("debugpy_source", "Source", "Lines of a source file around line (default: around the current stop), the current line marked.", Read, readOnly, source),
	def("debugpy_output", "Program output", "Program output (stdout, stderr, console, logpoints) from cursor since; pass the returned next to read on.", Read, readOnly, withSession(output)),
	def("debugpy_exception_info", "Exception info", "The exception a thread stopped on: type, message, break mode and traceback.", Read, readOnly, withSession(exceptionInfo)),
}

// unansweredKey marks, in a call's context, that debugpy did not answer a
// request of the call in time (stuck): the program is busy running code,
// and the gate asks nothing more of it for the call (PolicyGate).
type unansweredKey struct{}

func (ts *Toolset) rctx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, cmp.Or(ts.RequestTimeout, DefaultRequestTimeout))
}

// stuck explains a request that debugpy did not answer in time: code it
// runs (an evaluate, a value, a condition) may never return.
func (ts *Toolset) stuck(ctx context.Context, err error) error {
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		if f, ok := ctx.Value(unansweredKey{}).(*atomic.Bool); ok {
			f.Store(true)
		}
		return fmt.Errorf("debugpy did not answer within %v: the code may be stuck in the program (an endless loop?), which keeps it from answering anything else. End it with debugpy_session_stop and terminate=true; debugpy_session_status says what state it is in", cmp.Or(ts.RequestTimeout, DefaultRequestTimeout))
	}
	return staleHint(err)
}

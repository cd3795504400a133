package tools

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"time"

	godap "github.com/google/go-dap"
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
		}
		if d, ok := any(&a).(deriver); ok {
			if p.derived, err = d.derive(ctx, ts); err != nil {
				return p, err
			}
		}
		// The handler runs the value that was decoded and derived: no
		// second reading of the arguments.
		p.run = func(ctx context.Context) (*mcp.CallToolResult, error) {
			out, text, err := fn(ctx, ts, a)
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

var (
	readOnly = annot{readOnly: true, idempotent: true}
	control  = annot{}
	starts   = annot{openWorld: true}
)

var catalogue = []Spec{
	def("debugpy_session_start", "Attach to debugpy",
		"Attach to a program started with `python -m debugpy --listen HOST:PORT` (add --wait-for-client to stop it until attached; stop_on_entry, breakpoints and exception_filters are set before it runs). path_mappings translate local paths to the debuggee's and back.",
		Write, starts, sessionStart),
	def("debugpy_launch", "Launch under debugpy",
		"Run a Python program or module under debugpy. It stops on entry by default, so breakpoints can be set before it runs: then call debugpy_continue.",
		Execute, starts, launch),
	def("debugpy_attach_pid", "Attach to a Python process",
		"Inject debugpy into a running Python process by PID and attach (needs gdb and ptrace permission).",
		Execute, starts, attachPID),
	def("debugpy_session_stop", "End a debug session",
		"Disconnect from debugpy. With terminate=false (the default) the program runs on; with terminate=true it is ended.",
		Write, annot{destructive: true}, sessionStop),
	def("debugpy_session_status", "Session status",
		"Connection state, where each stopped thread is (thread, frame, file, line, reason), breakpoints, path mappings, process, output cursor, and whether debugpy's speed fix is on (nodelay).",
		Read, readOnly, sessionStatus),
	def("debugpy_sessions", "List debug sessions", "The open debug sessions and their state.", Read, readOnly, sessions),
	def("debugpy_set_breakpoint", "Set a breakpoint",
		"Set a breakpoint at file:line; optional condition and hit_condition (Python expressions), log_message turns it into a logpoint ({expr} interpolated). Returns whether debugpy verified it and the line it bound.",
		Write, control, setBreakpoint),
	def("debugpy_remove_breakpoint", "Remove a breakpoint", "Remove a breakpoint by breakpoint_id, or every breakpoint at file + line.",
		Write, annot{destructive: true, idempotent: true}, removeBreakpoint),
	def("debugpy_list_breakpoints", "List breakpoints", "The breakpoints of the session, with their verified flag and bound line.", Read, readOnly, listBreakpoints),
	def("debugpy_set_exception_breakpoints", "Break on exceptions",
		"Replace the exception filters: raised (every raise), uncaught, userUnhandled. An empty list turns them off.",
		Write, annot{idempotent: true}, setExceptionBreakpoints),
	def("debugpy_continue", "Continue", "Resume the program; waits up to wait_s for the next stop and returns it, or says it is running or has exited.", Write, control, resumeTool("continue")),
	def("debugpy_pause", "Pause", "Pause the program; waits up to wait_s for the stop (a thread in time.sleep stops only when the sleep returns).", Write, control, resumeTool("pause")),
	def("debugpy_step_over", "Step over", "Run to the next line of the current function; returns the new stop.", Write, control, resumeTool("over")),
	def("debugpy_step_in", "Step in", "Step into the call on the current line; returns the new stop.", Write, control, resumeTool("in")),
	def("debugpy_step_out", "Step out", "Run until the current function returns; returns the new stop.", Write, control, resumeTool("out")),
	def("debugpy_wait_for_stop", "Wait for a stop",
		"Wait up to timeout_s for the program to stop (breakpoint, exception, pause) or exit, with progress notifications while it waits.",
		Read, readOnly, waitForStop),
	def("debugpy_threads", "Threads", "The debuggee's threads; with frames > 0, the top frames of each stopped thread.", Read, readOnly, threads),
	def("debugpy_stack_trace", "Stack trace", "The frames of a stopped thread (default: the one that stopped last), innermost first; frame ids feed debugpy_variables and debugpy_evaluate.", Read, readOnly, stackTrace),
	def("debugpy_variables", "Variables",
		"The variables of a frame's scope (locals or globals), or the children of a variables_reference, expanded to depth, at most max_items per level, with types. [ref N]: pass N as variables_reference to expand that entry.",
		Read, readOnly, variables),
	def("debugpy_evaluate", "Evaluate", "Evaluate a Python expression in a frame (context watch, hover or clipboard), or run a statement (context repl).", Execute, control, evaluate),
	def("debugpy_set_variable", "Set a variable", "Assign value (evaluated as Python) to a variable of a frame's scope or of a variables_reference.", Execute, control, setVariable),
	def("debugpy_source", "Source", "Lines of a source file around line (default: around the current stop), the current line marked.", Read, readOnly, source),
	def("debugpy_output", "Program output", "Program output (stdout, stderr, console, logpoints) from cursor since; pass the returned next to read on.", Read, readOnly, output),
	def("debugpy_exception_info", "Exception info", "The exception a thread stopped on: type, message, break mode and traceback.", Read, readOnly, exceptionInfo),
}

func (ts *Toolset) rctx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, cmp.Or(ts.RequestTimeout, DefaultRequestTimeout))
}

// stuck explains a request that debugpy did not answer in time: code it
// runs (an evaluate, a value, a condition) may never return.
func (ts *Toolset) stuck(ctx context.Context, err error) error {
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		return fmt.Errorf("debugpy did not answer within %v: the code may be stuck in the program (an endless loop?), which keeps it from answering anything else. End it with debugpy_session_stop and terminate=true; debugpy_session_status says what state it is in", cmp.Or(ts.RequestTimeout, DefaultRequestTimeout))
	}
	return staleHint(err)
}

// SessionView is a session as the tools report it.
type SessionView struct {
	dap.Info
	Stopped          []dap.Stop       `json:"stopped_threads"`
	Stop             *dap.Stop        `json:"stop,omitempty"`
	Breakpoints      []dap.Breakpoint `json:"breakpoints"`
	ExceptionFilters []string         `json:"exception_filters"`
	OutputNext       uint64           `json:"output_next"`
}

func view(s *dap.Session) SessionView {
	threads, last := s.Stops()
	v := SessionView{Info: s.Info(), Stopped: threads, Stop: last, Breakpoints: s.Breakpoints(),
		ExceptionFilters: s.ExceptionFilters(), OutputNext: s.Output().Next()}
	if v.Stopped == nil {
		v.Stopped = []dap.Stop{}
	}
	if v.Breakpoints == nil {
		v.Breakpoints = []dap.Breakpoint{}
	}
	return v
}

func describe(v SessionView) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "session %q (%s) is %s", v.Name, v.Kind, v.State)
	switch {
	case v.Host != "":
		fmt.Fprintf(&sb, ", attached to %s:%d", v.Host, v.Port)
	case v.Program != "":
		fmt.Fprintf(&sb, ", running %s", v.Program)
	}
	if v.PID != 0 {
		fmt.Fprintf(&sb, ", pid %d", v.PID)
	}
	if v.ExitCode != nil {
		fmt.Fprintf(&sb, ", exit code %d", *v.ExitCode)
	}
	if v.Error != "" {
		fmt.Fprintf(&sb, " (%s)", v.Error)
	}
	if v.NoDelay != "" {
		fmt.Fprintf(&sb, "\nspeed fix (nodelay): %s", v.NoDelay)
	}
	if v.Stop != nil {
		sb.WriteString("\n" + stopText(v.Stop))
	}
	fmt.Fprintf(&sb, "\n%d breakpoint(s)", len(v.Breakpoints))
	return sb.String()
}

func stopText(st *dap.Stop) string {
	s := fmt.Sprintf("stopped (%s) in thread %d at %s:%d in %s (frame %d)", st.Reason, st.ThreadID, st.File, st.Line, st.Function, st.FrameID)
	if st.Text != "" {
		s += ": " + st.Text
	}
	return s
}

// --- starting and ending sessions ---

type MappingArg struct {
	LocalRoot  string `json:"local_root" jsonschema:"directory on this machine"`
	RemoteRoot string `json:"remote_root" jsonschema:"the same directory as the debuggee sees it"`
}

type StartArgs struct {
	Target
	Host         string       `json:"host,omitempty" jsonschema:"host debugpy listens on (default 127.0.0.1)"`
	Port         int          `json:"port,omitempty" jsonschema:"port debugpy listens on (default 5678)"`
	PathMappings []MappingArg `json:"path_mappings,omitempty" jsonschema:"local and remote roots, when the debuggee sees other paths"`
	JustMyCode   *bool        `json:"just_my_code,omitempty" jsonschema:"step only through user code (default true)"`
	// Set before the program is released: one started with
	// --wait-for-client runs as soon as the attach completes.
	Breakpoints      []StartBreakpoint `json:"breakpoints,omitempty" jsonschema:"breakpoints set before the program is released (with --wait-for-client it runs once attached)"`
	ExceptionFilters []string          `json:"exception_filters,omitempty" jsonschema:"raised, uncaught or userUnhandled: stop on these exceptions from the start"`
	StopOnEntry      *bool             `json:"stop_on_entry,omitempty" jsonschema:"with --wait-for-client: stop at the program's first line (default false)"`
}

// StartBreakpoint is a breakpoint set by debugpy_session_start.
type StartBreakpoint struct {
	File         string `json:"file" jsonschema:"absolute source file path (on this machine)"`
	Line         int    `json:"line" jsonschema:"1-based line"`
	Condition    string `json:"condition,omitempty" jsonschema:"Python expression: stop only when true"`
	HitCondition string `json:"hit_condition,omitempty" jsonschema:"stop on the Nth hit, e.g. 3, >=3, %2"`
	LogMessage   string `json:"log_message,omitempty" jsonschema:"log this message instead of stopping; {expr} is interpolated"`
}

func sessionName(t Target) string {
	if t.Session == "" {
		return DefaultSession
	}
	return t.Session
}

func sessionStart(ctx context.Context, ts *Toolset, a StartArgs) (SessionView, string, error) {
	if a.Host == "" {
		a.Host = "127.0.0.1"
	}
	if a.Port == 0 {
		a.Port = 5678
	}
	if a.Port < 0 || a.Port > 65535 {
		return SessionView{}, "", fmt.Errorf("port %d is not a TCP port (1-65535)", a.Port)
	}
	var maps []dap.PathMapping
	for _, m := range a.PathMappings {
		if m.LocalRoot == "" || m.RemoteRoot == "" {
			return SessionView{}, "", errors.New("each path mapping needs local_root and remote_root")
		}
		maps = append(maps, dap.PathMapping{LocalRoot: m.LocalRoot, RemoteRoot: m.RemoteRoot})
	}
	if err := checkFilters(a.ExceptionFilters); err != nil {
		return SessionView{}, "", err
	}
	var bps []dap.Breakpoint
	for i, b := range a.Breakpoints {
		if b.Line < 1 {
			return SessionView{}, "", fmt.Errorf("breakpoints[%d]: line is required: the 1-based line to stop at", i)
		}
		bps = append(bps, dap.Breakpoint{File: b.File, Line: b.Line, Condition: b.Condition, HitCondition: b.HitCondition, LogMessage: b.LogMessage})
	}
	name := sessionName(a.Target)
	return start(ts, name, func() (*dap.Session, error) {
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		return dap.Attach(cctx, name, dap.AttachConfig{Host: a.Host, Port: a.Port, PathMappings: maps,
			JustMyCode: a.JustMyCode == nil || *a.JustMyCode, Breakpoints: bps, ExceptionFilters: a.ExceptionFilters,
			StopOnEntry: a.StopOnEntry != nil && *a.StopOnEntry}, ts.log)
	}, "attached")
}

func start(ts *Toolset, name string, open func() (*dap.Session, error), verb string) (SessionView, string, error) {
	if err := ts.Sessions.Reserve(name); err != nil {
		return SessionView{}, "", err
	}
	s, err := open()
	if err != nil {
		ts.Sessions.Drop(name)
		return SessionView{}, "", err
	}
	ts.Sessions.Add(s)
	v := view(s)
	return v, verb + ": " + describe(v), nil
}

type LaunchArgs struct {
	Target
	Program     string            `json:"program,omitempty" jsonschema:"path of the Python script to run (or give module)"`
	Module      string            `json:"module,omitempty" jsonschema:"module to run as python -m (or give program)"`
	Args        []string          `json:"args,omitempty" jsonschema:"command-line arguments"`
	Cwd         string            `json:"cwd,omitempty" jsonschema:"working directory"`
	Env         map[string]string `json:"env,omitempty" jsonschema:"environment variables to add"`
	Python      string            `json:"python,omitempty" jsonschema:"Python interpreter (default: the first of python3, python, /usr/bin/python3 that can import debugpy)"`
	StopOnEntry *bool             `json:"stop_on_entry,omitempty" jsonschema:"stop before the first line (default true)"`
	JustMyCode  *bool             `json:"just_my_code,omitempty" jsonschema:"step only through user code (default true)"`
}

func launch(ctx context.Context, ts *Toolset, a LaunchArgs) (SessionView, string, error) {
	if (a.Program == "") == (a.Module == "") {
		return SessionView{}, "", errors.New("give exactly one of program (a script path) or module")
	}
	if a.Program != "" {
		abs, err := filepath.Abs(a.Program)
		if err != nil {
			return SessionView{}, "", err
		}
		a.Program = abs
	}
	name := sessionName(a.Target)
	entry := a.StopOnEntry == nil || *a.StopOnEntry
	v, text, err := start(ts, name, func() (*dap.Session, error) {
		cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		defer cancel()
		return dap.Launch(cctx, name, dap.LaunchConfig{Program: a.Program, Module: a.Module, Args: a.Args, Cwd: a.Cwd,
			Env: a.Env, Python: a.Python, StopOnEntry: entry, JustMyCode: a.JustMyCode == nil || *a.JustMyCode, NoDelay: ts.NoDelay}, ts.log)
	}, "launched")
	if err != nil || !entry {
		return v, text, err
	}
	s, err := ts.Sessions.Get(name)
	if err != nil {
		return v, text, err
	}
	wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if _, err := s.WaitStop(wctx, 0); err == nil {
		v = view(s)
		text = "launched: " + describe(v) + "\nset breakpoints, then call debugpy_continue"
	}
	return v, text, nil
}

type AttachPIDArgs struct {
	Target
	PID    int    `json:"pid" jsonschema:"process id of a running Python program"`
	Python string `json:"python,omitempty" jsonschema:"Python interpreter that runs debugpy's adapter"`
}

func attachPID(ctx context.Context, ts *Toolset, a AttachPIDArgs) (SessionView, string, error) {
	name := sessionName(a.Target)
	return start(ts, name, func() (*dap.Session, error) {
		cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		defer cancel()
		return dap.AttachPID(cctx, name, a.PID, a.Python, ts.NoDelay, ts.log)
	}, "attached")
}

type StopArgs struct {
	Target
	Terminate bool `json:"terminate,omitempty" jsonschema:"also end the program (default false: it runs on)"`
}

type StopResult struct {
	Session    string `json:"session"`
	Terminated bool   `json:"terminated"`
	Warning    string `json:"warning,omitempty"`
}

func sessionStop(ctx context.Context, ts *Toolset, a StopArgs) (StopResult, string, error) {
	s, err := ts.Sessions.Get(a.Session)
	if err != nil {
		return StopResult{}, "", err
	}
	cctx, cancel := ts.rctx(ctx)
	defer cancel()
	exited := s.Info().State == dap.StateExited
	err = s.Close(cctx, a.Terminate)
	ts.Sessions.Drop(s.Name())
	r := StopResult{Session: s.Name(), Terminated: a.Terminate}
	text := fmt.Sprintf("session %q ended; the program runs on", s.Name())
	switch {
	case exited:
		text = fmt.Sprintf("session %q ended (its program had already exited)", s.Name())
	case a.Terminate:
		text = fmt.Sprintf("session %q ended and its program terminated", s.Name())
	}
	if err != nil {
		r.Warning = err.Error()
		text += " (debugpy said: " + err.Error() + ")"
	}
	return r, text, nil
}

func sessionStatus(ctx context.Context, ts *Toolset, a Target) (SessionView, string, error) {
	s, err := ts.Sessions.Get(a.Session)
	if err != nil {
		return SessionView{}, "", err
	}
	v := view(s)
	return v, describe(v), nil
}

type SessionList struct {
	Sessions []SessionView `json:"sessions"`
}

func sessions(ctx context.Context, ts *Toolset, _ Target) (SessionList, string, error) {
	l := SessionList{Sessions: []SessionView{}}
	var lines []string
	for _, s := range ts.Sessions.All() {
		v := view(s)
		l.Sessions = append(l.Sessions, v)
		lines = append(lines, fmt.Sprintf("%s: %s %s", v.Name, v.Kind, v.State))
	}
	if len(lines) == 0 {
		return l, "no debug sessions: call debugpy_session_start or debugpy_launch", nil
	}
	return l, strings.Join(lines, "\n"), nil
}

// --- breakpoints ---

type BreakpointArgs struct {
	Target
	File         string `json:"file" jsonschema:"source file path (on this machine)"`
	Line         int    `json:"line" jsonschema:"1-based line"`
	Condition    string `json:"condition,omitempty" jsonschema:"Python expression: stop only when true"`
	HitCondition string `json:"hit_condition,omitempty" jsonschema:"stop on the Nth hit, e.g. 3, >=3, %2"`
	LogMessage   string `json:"log_message,omitempty" jsonschema:"log this message instead of stopping; {expr} is interpolated"`
}

type BreakpointResult struct {
	Breakpoint dap.Breakpoint `json:"breakpoint"`
}

func absFile(f string) (string, error) {
	if f == "" {
		return "", errors.New("file is required")
	}
	return filepath.Abs(f)
}

func setBreakpoint(ctx context.Context, ts *Toolset, a BreakpointArgs) (BreakpointResult, string, error) {
	switch {
	case a.Line == 0:
		return BreakpointResult{}, "", errors.New("line is required: the 1-based line to stop at")
	case a.Line < 0:
		return BreakpointResult{}, "", fmt.Errorf("line %d: lines start at 1", a.Line)
	}
	s, err := ts.Sessions.Get(a.Session)
	if err != nil {
		return BreakpointResult{}, "", err
	}
	file, err := absFile(a.File)
	if err != nil {
		return BreakpointResult{}, "", err
	}
	cctx, cancel := ts.rctx(ctx)
	defer cancel()
	bp, err := s.AddBreakpoint(cctx, dap.Breakpoint{File: file, Line: a.Line, Condition: a.Condition,
		HitCondition: a.HitCondition, LogMessage: a.LogMessage})
	if err != nil {
		return BreakpointResult{}, "", err
	}
	text := fmt.Sprintf("breakpoint %d at %s:%d", bp.ID, bp.File, bp.Line)
	if bp.Verified {
		text += fmt.Sprintf(", verified, bound to line %d", bp.BoundLine)
	} else {
		text += ", not verified yet"
		if bp.Message != "" {
			text += ": " + bp.Message
		}
	}
	return BreakpointResult{Breakpoint: bp}, text, nil
}

type RemoveArgs struct {
	Target
	BreakpointID int    `json:"breakpoint_id,omitempty" jsonschema:"id from debugpy_set_breakpoint"`
	File         string `json:"file,omitempty" jsonschema:"with line: remove the breakpoints there"`
	Line         int    `json:"line,omitempty"`
}

type BreakpointList struct {
	Breakpoints []dap.Breakpoint `json:"breakpoints"`
}

func removeBreakpoint(ctx context.Context, ts *Toolset, a RemoveArgs) (BreakpointList, string, error) {
	s, err := ts.Sessions.Get(a.Session)
	if err != nil {
		return BreakpointList{}, "", err
	}
	var file string
	if a.BreakpointID == 0 {
		if a.File == "" || a.Line == 0 {
			return BreakpointList{}, "", errors.New("give breakpoint_id, or file and line")
		}
		if file, err = absFile(a.File); err != nil {
			return BreakpointList{}, "", err
		}
	}
	cctx, cancel := ts.rctx(ctx)
	defer cancel()
	removed, err := s.RemoveBreakpoint(cctx, a.BreakpointID, file, a.Line)
	if err != nil {
		return BreakpointList{}, "", err
	}
	if len(removed) == 0 {
		return BreakpointList{}, "", errors.New("no such breakpoint: call debugpy_list_breakpoints")
	}
	return BreakpointList{Breakpoints: removed}, fmt.Sprintf("removed %d breakpoint(s)", len(removed)), nil
}

func listBreakpoints(ctx context.Context, ts *Toolset, a Target) (BreakpointList, string, error) {
	s, err := ts.Sessions.Get(a.Session)
	if err != nil {
		return BreakpointList{}, "", err
	}
	l := BreakpointList{Breakpoints: s.Breakpoints()}
	if l.Breakpoints == nil {
		l.Breakpoints = []dap.Breakpoint{}
	}
	var lines []string
	for _, bp := range l.Breakpoints {
		lines = append(lines, fmt.Sprintf("%d: %s:%d verified=%t bound=%d", bp.ID, bp.File, bp.Line, bp.Verified, bp.BoundLine))
	}
	if len(lines) == 0 {
		return l, "no breakpoints", nil
	}
	return l, strings.Join(lines, "\n"), nil
}

type ExceptionArgs struct {
	Target
	Filters []string `json:"filters" jsonschema:"any of raised, uncaught, userUnhandled"`
}

type ExceptionFilters struct {
	Filters []string `json:"filters"`
}

// checkFilters refuses an exception filter debugpy does not have.
func checkFilters(filters []string) error {
	for _, f := range filters {
		if f != "raised" && f != "uncaught" && f != "userUnhandled" {
			return fmt.Errorf("unknown exception filter %q: use raised, uncaught or userUnhandled", f)
		}
	}
	return nil
}

func setExceptionBreakpoints(ctx context.Context, ts *Toolset, a ExceptionArgs) (ExceptionFilters, string, error) {
	s, err := ts.Sessions.Get(a.Session)
	if err != nil {
		return ExceptionFilters{}, "", err
	}
	if err := checkFilters(a.Filters); err != nil {
		return ExceptionFilters{}, "", err
	}
	cctx, cancel := ts.rctx(ctx)
	defer cancel()
	if err := s.SetExceptionBreakpoints(cctx, a.Filters); err != nil {
		return ExceptionFilters{}, "", err
	}
	f := s.ExceptionFilters()
	return ExceptionFilters{Filters: f}, fmt.Sprintf("exception filters: %v", f), nil
}

// --- running ---

type ResumeArgs struct {
	Target
	ThreadID int      `json:"thread_id,omitempty" jsonschema:"thread (default: the one that stopped last)"`
	WaitS    *float64 `json:"wait_s,omitempty" jsonschema:"seconds to wait for the next stop (default 10; 0 returns at once)"`
}

type RunState struct {
	Session  string    `json:"session"`
	State    string    `json:"state" jsonschema:"stopped, running, exited or disconnected"`
	Stop     *dap.Stop `json:"stop,omitempty"`
	ExitCode *int      `json:"exit_code,omitempty"`
}

func resumeTool(kind string) func(context.Context, *Toolset, ResumeArgs) (RunState, string, error) {
	return func(ctx context.Context, ts *Toolset, a ResumeArgs) (RunState, string, error) {
		s, err := ts.Sessions.Get(a.Session)
		if err != nil {
			return RunState{}, "", err
		}
		thread := a.ThreadID
		_, last := s.Stops()
		if kind == "pause" {
			if last != nil && thread == 0 {
				return runState(s, last, nil), "already " + stopText(last), nil
			}
			if thread == 0 {
				cctx, cancel := ts.rctx(ctx)
				th, err := s.Threads(cctx)
				cancel()
				if err != nil {
					return RunState{}, "", err
				}
				if len(th) == 0 {
					return RunState{}, "", errors.New("the program has no threads to pause")
				}
				thread = th[0].Id
			}
		} else if thread == 0 {
			if last == nil {
				return RunState{}, "", notStopped(s)
			}
			thread = last.ThreadID
		}
		gen := s.Gen()
		cctx, cancel := ts.rctx(ctx)
		switch kind {
		case "continue":
			err = s.Continue(cctx, thread)
		case "pause":
			err = s.Pause(cctx, thread)
		default:
			err = s.Step(cctx, kind, thread)
		}
		cancel()
		var re *dap.ResponseError
		if errors.As(err, &re) {
			return RunState{}, "", fmt.Errorf("%w: is thread %d stopped? call debugpy_threads", err, thread)
		}
		if err != nil {
			return RunState{}, "", err
		}
		wait := 10.0
		if a.WaitS != nil {
			wait = *a.WaitS
		}
		return awaitStop(ctx, s, gen, wait)
	}
}

func notStopped(s *dap.Session) error {
	in := s.Info()
	if in.State == dap.StateRunning {
		return errors.New("the program is running: call debugpy_pause or debugpy_wait_for_stop first")
	}
	return fmt.Errorf("the program is %s, not stopped: call debugpy_session_status", in.State)
}

func runState(s *dap.Session, st *dap.Stop, err error) RunState {
	in := s.Info()
	r := RunState{Session: s.Name(), State: in.State, Stop: st, ExitCode: in.ExitCode}
	if st != nil {
		r.State = dap.StateStopped
	}
	return r
}

// awaitStop waits up to wait seconds for a stop newer than gen.
func awaitStop(ctx context.Context, s *dap.Session, gen uint64, wait float64) (RunState, string, error) {
	if wait < 0 || wait > 3600 {
		return RunState{}, "", fmt.Errorf("wait %gs is out of range (0 to 3600)", wait)
	}
	wctx, cancel := context.WithTimeout(ctx, time.Duration(wait*float64(time.Second)))
	defer cancel()
	st, err := s.WaitStop(wctx, gen)
	switch {
	case err == nil:
		return runState(s, st, nil), stopText(st), nil
	case errors.Is(err, dap.ErrExited):
		r := runState(s, nil, err)
		code := "unknown"
		if r.ExitCode != nil {
			code = fmt.Sprint(*r.ExitCode)
		}
		return r, "the program has exited with code " + code + "; debugpy_output has what it printed", nil
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
		r := runState(s, nil, nil)
		return r, fmt.Sprintf("the program is running (no stop within %gs): call debugpy_wait_for_stop or debugpy_pause", wait), nil
	case errors.Is(err, dap.ErrDisconnected):
		return RunState{}, "", fmt.Errorf("%v: the session is over; call debugpy_session_stop, then start a new one", err)
	}
	return RunState{}, "", err
}

type WaitArgs struct {
	Target
	TimeoutS *float64 `json:"timeout_s,omitempty" jsonschema:"seconds to wait (default 30)"`
}

func waitForStop(ctx context.Context, ts *Toolset, a WaitArgs) (RunState, string, error) {
	s, err := ts.Sessions.Get(a.Session)
	if err != nil {
		return RunState{}, "", err
	}
	if _, last := s.Stops(); last != nil {
		return runState(s, last, nil), stopText(last), nil
	}
	timeout := 30.0
	if a.TimeoutS != nil {
		timeout = *a.TimeoutS
	}
	gen := s.Known() // a stop under way counts: its details may be coming
	pctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		t0 := time.Now()
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-pctx.Done():
				return
			case <-tick.C:
				el := time.Since(t0).Seconds()
				progress(ctx, el, timeout, fmt.Sprintf("waiting for %s to stop (%.0fs of %gs)", s.Name(), el, timeout))
			}
		}
	}()
	return awaitStop(ctx, s, gen, timeout)
}

// --- inspecting ---

type ThreadsArgs struct {
	Target
	Frames int `json:"frames,omitempty" jsonschema:"top frames to include per stopped thread (default 0)"`
}

type ThreadView struct {
	ID      int     `json:"id"`
	Name    string  `json:"name"`
	Stopped bool    `json:"stopped"`
	Frames  []Frame `json:"frames,omitempty"`
}

type ThreadList struct {
	Threads []ThreadView `json:"threads"`
}

type Frame struct {
	ID       int    `json:"id"`
	Function string `json:"function"`
	File     string `json:"file,omitempty"`
	Line     int    `json:"line"`
	Column   int    `json:"column,omitempty"`
}

func frames(fs []godap.StackFrame) []Frame {
	out := make([]Frame, 0, len(fs))
	for _, f := range fs {
		fr := Frame{ID: f.Id, Function: f.Name, Line: f.Line, Column: f.Column}
		if f.Source != nil {
			fr.File = f.Source.Path
		}
		out = append(out, fr)
	}
	return out
}

func threads(ctx context.Context, ts *Toolset, a ThreadsArgs) (ThreadList, string, error) {
	s, err := ts.Sessions.Get(a.Session)
	if err != nil {
		return ThreadList{}, "", err
	}
	cctx, cancel := ts.rctx(ctx)
	defer cancel()
	th, err := s.Threads(cctx)
	if err != nil {
		return ThreadList{}, "", err
	}
	stopped := s.Info().State == dap.StateStopped
	l := ThreadList{Threads: make([]ThreadView, len(th))}
	// The stacks of all threads at once: one round trip, not one a thread.
	var wg sync.WaitGroup
	for i, t := range th {
		l.Threads[i] = ThreadView{ID: t.Id, Name: t.Name, Stopped: stopped}
		if stopped && a.Frames > 0 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if fs, _, err := s.StackTrace(cctx, t.Id, 0, a.Frames); err == nil {
					l.Threads[i].Frames = frames(fs)
				}
			}()
		}
	}
	wg.Wait()
	var sb strings.Builder
	for _, tv := range l.Threads {
		fmt.Fprintf(&sb, "thread %d %q", tv.ID, tv.Name)
		if len(tv.Frames) > 0 {
			fmt.Fprintf(&sb, " at %s:%d in %s", tv.Frames[0].File, tv.Frames[0].Line, tv.Frames[0].Function)
		}
		sb.WriteString("\n")
	}
	return l, strings.TrimSpace(sb.String()), nil
}

type StackArgs struct {
	Target
	ThreadID   int `json:"thread_id,omitempty" jsonschema:"thread (default: the one that stopped last)"`
	Levels     int `json:"levels,omitempty" jsonschema:"frames to return (default 20)"`
	StartFrame int `json:"start_frame,omitempty" jsonschema:"index of the first frame to return"`
}

type StackResult struct {
	ThreadID    int     `json:"thread_id"`
	Frames      []Frame `json:"frames"`
	TotalFrames int     `json:"total_frames"`
}

func stoppedThread(s *dap.Session, asked int) (int, error) {
	if asked != 0 {
		return asked, nil
	}
	_, last := s.Stops()
	if last == nil {
		return 0, notStopped(s)
	}
	return last.ThreadID, nil
}

func stackTrace(ctx context.Context, ts *Toolset, a StackArgs) (StackResult, string, error) {
	s, err := ts.Sessions.Get(a.Session)
	if err != nil {
		return StackResult{}, "", err
	}
	thread, err := stoppedThread(s, a.ThreadID)
	if err != nil {
		return StackResult{}, "", err
	}
	if a.Levels <= 0 {
		a.Levels = dap.PrefetchFrames // what the session fetched at the stop
	}
	cctx, cancel := ts.rctx(ctx)
	defer cancel()
	fs, total, err := s.StackTrace(cctx, thread, a.StartFrame, a.Levels)
	if err != nil {
		return StackResult{}, "", fmt.Errorf("%w: is thread %d stopped? call debugpy_threads", err, thread)
	}
	r := StackResult{ThreadID: thread, Frames: frames(fs), TotalFrames: total}
	var sb strings.Builder
	for i, f := range r.Frames {
		fmt.Fprintf(&sb, "#%d %s at %s:%d (frame %d)\n", a.StartFrame+i, f.Function, f.File, f.Line, f.ID)
	}
	return r, strings.TrimSpace(sb.String()), nil
}

type VariablesArgs struct {
	Target
	FrameID            int    `json:"frame_id,omitempty" jsonschema:"frame (default: the top frame of the last stop)"`
	Scope              string `json:"scope,omitempty" jsonschema:"locals (default) or globals"`
	VariablesReference int    `json:"variables_reference,omitempty" jsonschema:"expand this container instead of a scope"`
	Depth              int    `json:"depth,omitempty" jsonschema:"levels of nesting to expand (default 1, at most 5)"`
	MaxItems           int    `json:"max_items,omitempty" jsonschema:"children shown per container (default 100)"`
}

type Variable struct {
	Name               string     `json:"name"`
	Value              string     `json:"value"`
	Type               string     `json:"type,omitempty"`
	EvaluateName       string     `json:"evaluate_name,omitempty"`
	VariablesReference int        `json:"variables_reference,omitempty"`
	Children           []Variable `json:"children,omitempty"`
	Truncated          bool       `json:"truncated,omitempty" jsonschema:"more children than max_items"`
}

type VariablesResult struct {
	Scope              string     `json:"scope,omitempty"`
	FrameID            int        `json:"frame_id,omitempty"`
	VariablesReference int        `json:"variables_reference"`
	Variables          []Variable `json:"variables"`
	Truncated          bool       `json:"truncated,omitempty"`
}

// debugpy's pseudo-variables that group members; listed, not expanded.
var groups = map[string]bool{"special variables": true, "function variables": true, "class variables": true, "protected variables": true}

func topFrame(s *dap.Session, asked int) (int, error) {
	if asked != 0 {
		return asked, nil
	}
	_, last := s.Stops()
	if last == nil {
		return 0, notStopped(s)
	}
	return last.FrameID, nil
}

func scopeRef(ctx context.Context, s *dap.Session, frameID int, scope string) (int, error) {
	if scope == "" {
		scope = "locals"
	}
	if scope != "locals" && scope != "globals" {
		return 0, fmt.Errorf("scope %q: use locals or globals", scope)
	}
	scs, err := s.Scopes(ctx, frameID)
	if err != nil {
		return 0, staleHint(err)
	}
	for _, sc := range scs {
		n := strings.ToLower(sc.Name)
		if n == scope || (scope == "locals" && sc.PresentationHint == "locals") {
			return sc.VariablesReference, nil
		}
	}
	return 0, fmt.Errorf("frame %d has no %s scope", frameID, scope)
}

func staleHint(err error) error {
	var re *dap.ResponseError
	if errors.As(err, &re) {
		return fmt.Errorf("%w (a frame or variables reference is valid only until the program runs again: call debugpy_stack_trace for current ids)", err)
	}
	return err
}

func variables(ctx context.Context, ts *Toolset, a VariablesArgs) (VariablesResult, string, error) {
	s, err := ts.Sessions.Get(a.Session)
	if err != nil {
		return VariablesResult{}, "", err
	}
	if a.Depth <= 0 {
		a.Depth = 1
	}
	if a.Depth > 5 {
		return VariablesResult{}, "", fmt.Errorf("depth %d: at most 5", a.Depth)
	}
	if a.MaxItems <= 0 {
		a.MaxItems = 100
	}
	cctx, cancel := ts.rctx(ctx)
	defer cancel()
	r := VariablesResult{VariablesReference: a.VariablesReference}
	if r.VariablesReference == 0 {
		frame, err := topFrame(s, a.FrameID)
		if err != nil {
			return VariablesResult{}, "", err
		}
		ref, err := scopeRef(cctx, s, frame, a.Scope)
		if err != nil {
			return VariablesResult{}, "", err
		}
		r.FrameID, r.VariablesReference, r.Scope = frame, ref, a.Scope
		if r.Scope == "" {
			r.Scope = "locals"
		}
	}
	vars, more, err := expand(cctx, s, r.VariablesReference, a.Depth, a.MaxItems)
	if err != nil {
		return VariablesResult{}, "", staleHint(err)
	}
	r.Variables, r.Truncated = vars, more
	var sb strings.Builder
	writeVars(&sb, vars, 0)
	if more {
		fmt.Fprintf(&sb, "… more than %d; raise max_items\n", a.MaxItems)
	}
	if len(vars) == 0 {
		sb.WriteString("(none)")
	}
	return r, strings.TrimRight(sb.String(), "\n"), nil
}

// expand lists the children of ref to depth levels, at most max a level.
// A level's containers are asked for all at once (at most maxInFlight
// requests in flight): a stopped thread answers variables requests on its
// 10 ms poll, and one poll serves all that are waiting.
func expand(ctx context.Context, s *dap.Session, ref, depth, max int) ([]Variable, bool, error) {
	root := &Variable{VariablesReference: ref}
	level := []*Variable{root}
	for d := 0; d < depth && len(level) > 0; d++ {
		errs := make([]error, len(level))
		sem := make(chan struct{}, maxInFlight)
		var wg sync.WaitGroup
		for i, v := range level {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				vs, err := s.Variables(ctx, v.VariablesReference, 0, 0)
				if err != nil {
					errs[i] = err
					return
				}
				// debugpy's group rows (special variables ...) do not
				// count against max: they come last, listed.
				var members, grouped []godap.Variable
				for _, c := range vs {
					if groups[c.Name] {
						grouped = append(grouped, c)
					} else {
						members = append(members, c)
					}
				}
				if len(members) > max {
					members, v.Truncated = members[:max], true
				}
				v.Children = make([]Variable, 0, len(members)+len(grouped))
				for _, c := range append(members, grouped...) {
					v.Children = append(v.Children, Variable{Name: c.Name, Value: c.Value, Type: c.Type,
						EvaluateName: c.EvaluateName, VariablesReference: c.VariablesReference})
				}
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				return nil, false, err
			}
		}
		var next []*Variable
		for _, v := range level {
			for i := range v.Children {
				c := &v.Children[i]
				if c.VariablesReference > 0 && !groups[c.Name] {
					next = append(next, c)
				}
			}
		}
		level = next
	}
	return root.Children, root.Truncated, nil
}

// maxInFlight bounds the variables requests of one expansion in flight.
const maxInFlight = 32

func writeVars(sb *strings.Builder, vs []Variable, indent int) {
	for _, v := range vs {
		ref := ""
		if v.VariablesReference > 0 && len(v.Children) == 0 {
			ref = fmt.Sprintf(" [ref %d]", v.VariablesReference) // not expanded here: how to
		}
		if v.Type == "" && v.Value == "" {
			fmt.Fprintf(sb, "%s%s%s\n", strings.Repeat("  ", indent), v.Name, ref)
			continue
		}
		fmt.Fprintf(sb, "%s%s: %s = %s%s\n", strings.Repeat("  ", indent), v.Name, v.Type, v.Value, ref)
		writeVars(sb, v.Children, indent+1)
	}
}

type EvaluateArgs struct {
	Target
	Expression string `json:"expression" jsonschema:"Python expression (or statement, with context repl)"`
	FrameID    int    `json:"frame_id,omitempty" jsonschema:"frame (default: the top frame of the last stop)"`
	Context    string `json:"context,omitempty" jsonschema:"watch (default), repl, hover or clipboard"`
}

type EvaluateResult struct {
	Result             string `json:"result"`
	Type               string `json:"type,omitempty"`
	VariablesReference int    `json:"variables_reference,omitempty"`
}

func evaluate(ctx context.Context, ts *Toolset, a EvaluateArgs) (EvaluateResult, string, error) {
	s, err := ts.Sessions.Get(a.Session)
	if err != nil {
		return EvaluateResult{}, "", err
	}
	if a.Expression == "" {
		return EvaluateResult{}, "", errors.New("expression is required")
	}
	switch a.Context {
	case "":
		a.Context = "watch"
	case "watch", "repl", "hover", "clipboard":
	default:
		return EvaluateResult{}, "", fmt.Errorf("context %q: use watch, repl, hover or clipboard", a.Context)
	}
	frame, err := topFrame(s, a.FrameID)
	if err != nil {
		return EvaluateResult{}, "", err
	}
	cctx, cancel := ts.rctx(ctx)
	defer cancel()
	body, err := s.Evaluate(cctx, a.Expression, frame, a.Context)
	if err != nil {
		return EvaluateResult{}, "", ts.stuck(ctx, err)
	}
	r := EvaluateResult{Result: body.Result, Type: body.Type, VariablesReference: body.VariablesReference}
	text := r.Result
	if r.Type != "" {
		text = r.Type + ": " + text
	}
	if text == "" {
		text = "(no value)"
	}
	return r, text, nil
}

type SetVariableArgs struct {
	Target
	Name               string `json:"name" jsonschema:"variable name"`
	Value              string `json:"value" jsonschema:"new value, a Python expression"`
	FrameID            int    `json:"frame_id,omitempty" jsonschema:"frame (default: the top frame of the last stop)"`
	Scope              string `json:"scope,omitempty" jsonschema:"locals (default) or globals"`
	VariablesReference int    `json:"variables_reference,omitempty" jsonschema:"container holding the variable, instead of a scope"`
}

func setVariable(ctx context.Context, ts *Toolset, a SetVariableArgs) (EvaluateResult, string, error) {
	s, err := ts.Sessions.Get(a.Session)
	if err != nil {
		return EvaluateResult{}, "", err
	}
	if a.Name == "" || a.Value == "" {
		return EvaluateResult{}, "", errors.New("name and value are required")
	}
	cctx, cancel := ts.rctx(ctx)
	defer cancel()
	ref := a.VariablesReference
	if ref == 0 {
		frame, err := topFrame(s, a.FrameID)
		if err != nil {
			return EvaluateResult{}, "", err
		}
		if ref, err = scopeRef(cctx, s, frame, a.Scope); err != nil {
			return EvaluateResult{}, "", err
		}
	}
	body, err := s.SetVariable(cctx, ref, a.Name, a.Value)
	if err != nil {
		return EvaluateResult{}, "", ts.stuck(ctx, err)
	}
	return EvaluateResult{Result: body.Value, Type: body.Type, VariablesReference: body.VariablesReference},
		fmt.Sprintf("%s = %s", a.Name, body.Value), nil
}

type SourceArgs struct {
	Target
	File         string `json:"file,omitempty" jsonschema:"file (default: where the program stopped)"`
	Line         int    `json:"line,omitempty" jsonschema:"line to centre on (default: the stop's line)"`
	ContextLines *int   `json:"context_lines,omitempty" jsonschema:"lines before and after (default 10)"`
}

type SourceLine struct {
	Line    int    `json:"line"`
	Text    string `json:"text"`
	Current bool   `json:"current,omitempty"`
}

type SourceResult struct {
	File  string       `json:"file"`
	Lines []SourceLine `json:"lines"`
}

func source(ctx context.Context, ts *Toolset, a SourceArgs) (SourceResult, string, error) {
	file, line := a.File, a.Line
	if file == "" || line == 0 {
		s, err := ts.Sessions.Get(a.Session)
		if err != nil {
			if file == "" {
				return SourceResult{}, "", err
			}
		} else if _, last := s.Stops(); last != nil {
			if file == "" {
				file = last.File
			}
			if line == 0 && file == last.File {
				line = last.Line
			}
		} else if file == "" {
			return SourceResult{}, "", fmt.Errorf("give file: %v", notStopped(s))
		}
	}
	n := 10
	if a.ContextLines != nil {
		n = *a.ContextLines
	}
	if n < 0 || n > 500 {
		return SourceResult{}, "", fmt.Errorf("context_lines %d: use 0 to 500", n)
	}
	lines, err := readLines(file, line, n)
	if err != nil {
		return SourceResult{}, "", err
	}
	var sb strings.Builder
	for _, l := range lines {
		mark := "  "
		if l.Current {
			mark = "->"
		}
		fmt.Fprintf(&sb, "%s %5d  %s\n", mark, l.Line, l.Text)
	}
	return SourceResult{File: file, Lines: lines}, strings.TrimRight(sb.String(), "\n"), nil
}

type OutputArgs struct {
	Target
	Since    uint64 `json:"since,omitempty" jsonschema:"cursor from the last call's next (default: from the start of the buffer)"`
	Category string `json:"category,omitempty" jsonschema:"only stdout, stderr, console or important"`
	MaxItems int    `json:"max_items,omitempty" jsonschema:"entries to return (default 200)"`
}

type OutputResult struct {
	Entries []dap.OutputEntry `json:"entries"`
	Next    uint64            `json:"next" jsonschema:"pass as since to read on"`
	Dropped uint64            `json:"dropped,omitempty" jsonschema:"entries lost to the buffer's bound before they were read"`
}

func output(ctx context.Context, ts *Toolset, a OutputArgs) (OutputResult, string, error) {
	s, err := ts.Sessions.Get(a.Session)
	if err != nil {
		return OutputResult{}, "", err
	}
	if a.MaxItems <= 0 {
		a.MaxItems = 200
	}
	e, next, dropped := s.Output().Read(a.Since, a.Category, a.MaxItems)
	if e == nil {
		e = []dap.OutputEntry{}
	}
	var sb strings.Builder
	if dropped > 0 {
		fmt.Fprintf(&sb, "(%d earlier entries were dropped)\n", dropped)
	}
	for _, x := range e {
		fmt.Fprintf(&sb, "[%s] %s", x.Category, x.Text)
		if !strings.HasSuffix(x.Text, "\n") {
			sb.WriteString("\n")
		}
	}
	if len(e) == 0 {
		sb.WriteString("(no new output)\n")
	}
	fmt.Fprintf(&sb, "next cursor: %d", next)
	return OutputResult{Entries: e, Next: next, Dropped: dropped}, sb.String(), nil
}

type ExceptionInfoArgs struct {
	Target
	ThreadID int `json:"thread_id,omitempty" jsonschema:"thread (default: the one that stopped last)"`
}

type ExceptionInfoResult struct {
	ExceptionID string `json:"exception_id"`
	Description string `json:"description,omitempty"`
	BreakMode   string `json:"break_mode"`
	StackTrace  string `json:"stack_trace,omitempty"`
}

func exceptionInfo(ctx context.Context, ts *Toolset, a ExceptionInfoArgs) (ExceptionInfoResult, string, error) {
	s, err := ts.Sessions.Get(a.Session)
	if err != nil {
		return ExceptionInfoResult{}, "", err
	}
	thread, err := stoppedThread(s, a.ThreadID)
	if err != nil {
		return ExceptionInfoResult{}, "", err
	}
	// Ask debugpy only about a thread that stopped on an exception: for
	// another, pydevd answers with nothing and prints a traceback into the
	// program's stderr.
	threads, _ := s.Stops()
	for _, st := range threads {
		if st.ThreadID == thread && st.Reason != "exception" {
			return ExceptionInfoResult{}, "", fmt.Errorf("thread %d stopped on a %s, not on an exception: set exception breakpoints (debugpy_set_exception_breakpoints) and continue", thread, st.Reason)
		}
	}
	cctx, cancel := ts.rctx(ctx)
	defer cancel()
	body, err := s.ExceptionInfo(cctx, thread)
	if err != nil {
		return ExceptionInfoResult{}, "", fmt.Errorf("%w: did thread %d stop on an exception? call debugpy_session_status", err, thread)
	}
	r := ExceptionInfoResult{ExceptionID: body.ExceptionId, Description: body.Description, BreakMode: string(body.BreakMode)}
	if body.Details != nil {
		r.StackTrace = body.Details.StackTrace
	}
	text := r.ExceptionID
	if r.Description != "" {
		text += ": " + r.Description
	}
	if r.StackTrace != "" {
		text += "\n" + r.StackTrace
	}
	return r, text, nil
}

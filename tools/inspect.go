package tools

// The inspection tools: threads, stack, variables, evaluate, set a variable, exception info.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	godap "github.com/google/go-dap"

	"github.com/debugpy-guard/debugpy-guard/dap"
)

type threadsArgs struct {
	Target
	Frames int `json:"frames,omitempty" jsonschema:"top frames to include per stopped thread (default 0)"`
}

type threadView struct {
	ID      int         `json:"id"`
	Name    string      `json:"name"`
	Stopped bool        `json:"stopped"`
	Frames  []frameView `json:"frames,omitempty"`
}

type threadList struct {
	Threads []threadView `json:"threads"`
}

type frameView struct {
	ID       int    `json:"id"`
	Function string `json:"function"`
	File     string `json:"file,omitempty"`
	Line     int    `json:"line"`
	Column   int    `json:"column,omitempty"`
}

func frames(fs []godap.StackFrame) []frameView {
	out := make([]frameView, 0, len(fs))
	for _, f := range fs {
		fr := frameView{ID: f.Id, Function: f.Name, Line: f.Line, Column: f.Column}
		if f.Source != nil {
			fr.File = f.Source.Path
		}
		out = append(out, fr)
	}
	return out
}

func threads(ctx context.Context, ts *Toolset, s *dap.Session, a threadsArgs) (threadList, string, error) {
	cctx, cancel := ts.rctx(ctx)
	defer cancel()
	th, err := s.Threads(cctx)
	if err != nil {
		return threadList{}, "", err
	}
	stopped := s.Info().State == dap.StateStopped
	l := threadList{Threads: make([]threadView, len(th))}
	// The stacks of all threads at once: one round trip, not one a thread.
	var wg sync.WaitGroup
	for i, t := range th {
		l.Threads[i] = threadView{ID: t.Id, Name: t.Name, Stopped: stopped}
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

type stackArgs struct {
	Target
	ThreadID   int `json:"thread_id,omitempty" jsonschema:"thread (default: the one that stopped last)"`
	Levels     int `json:"levels,omitempty" jsonschema:"frames to return (default 20)"`
	StartFrame int `json:"start_frame,omitempty" jsonschema:"index of the first frame to return"`
}

type stackResult struct {
	ThreadID    int         `json:"thread_id"`
	Frames      []frameView `json:"frames"`
	TotalFrames int         `json:"total_frames"`
}

// orLastStop is asked, or when it is 0 (the call names no thread or frame)
// that of the last stop: by(last), the stop's thread or frame.
func orLastStop(s *dap.Session, asked int, by func(*dap.Stop) int) (int, error) {
	if asked != 0 {
		return asked, nil
	}
	_, last := s.Stops()
	if last == nil {
		return 0, notStopped(s)
	}
	return by(last), nil
}

func threadOf(st *dap.Stop) int { return st.ThreadID }
func frameOf(st *dap.Stop) int  { return st.FrameID }

func stackTrace(ctx context.Context, ts *Toolset, s *dap.Session, a stackArgs) (stackResult, string, error) {
	thread, err := orLastStop(s, a.ThreadID, threadOf)
	if err != nil {
		return stackResult{}, "", err
	}
	if a.Levels <= 0 {
		a.Levels = dap.PrefetchFrames // what the session fetched at the stop
	}
	cctx, cancel := ts.rctx(ctx)
	defer cancel()
	fs, total, err := s.StackTrace(cctx, thread, a.StartFrame, a.Levels)
	if err != nil {
		return stackResult{}, "", fmt.Errorf("%w: is thread %d stopped? call debugpy_threads", err, thread)
	}
	r := stackResult{ThreadID: thread, Frames: frames(fs), TotalFrames: total}
	var sb strings.Builder
	for i, f := range r.Frames {
		fmt.Fprintf(&sb, "#%d %s at %s:%d (frame %d)\n", a.StartFrame+i, f.Function, f.File, f.Line, f.ID)
	}
	return r, strings.TrimSpace(sb.String()), nil
}

type variablesArgs struct {
	Target
	FrameID            int    `json:"frame_id,omitempty" jsonschema:"frame (default: the top frame of the last stop)"`
	Scope              string `json:"scope,omitempty" jsonschema:"locals (default) or globals"`
	VariablesReference int    `json:"variables_reference,omitempty" jsonschema:"expand this container instead of a scope"`
	Depth              int    `json:"depth,omitempty" jsonschema:"levels of nesting to expand (default 1, at most 5)"`
	MaxItems           int    `json:"max_items,omitempty" jsonschema:"children shown per container (default 100)"`
}

type variableView struct {
	Name               string         `json:"name"`
	Value              string         `json:"value"`
	Type               string         `json:"type,omitempty"`
	EvaluateName       string         `json:"evaluate_name,omitempty"`
	VariablesReference int            `json:"variables_reference,omitempty"`
	Children           []variableView `json:"children,omitempty"`
	Truncated          bool           `json:"truncated,omitempty" jsonschema:"more children than max_items"`

	// dropped are the children past max_items: not shown, read by the
	// result phase with those shown (shown.go).
	dropped []variableView
}

type variablesResult struct {
	Scope              string         `json:"scope,omitempty"`
	FrameID            int            `json:"frame_id,omitempty"`
	VariablesReference int            `json:"variables_reference"`
	Variables          []variableView `json:"variables"`
	Truncated          bool           `json:"truncated,omitempty"`

	dropped []variableView // of the container listed by variables_reference, past max_items (shown.go)
}

// debugpy's pseudo-variables that group members; listed, not expanded.
var groups = map[string]bool{"special variables": true, "function variables": true, "class variables": true, "protected variables": true}

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

func variables(ctx context.Context, ts *Toolset, s *dap.Session, a variablesArgs) (variablesResult, string, error) {
	if a.Depth <= 0 {
		a.Depth = 1
	}
	if a.Depth > 5 {
		return variablesResult{}, "", fmt.Errorf("depth %d: at most 5", a.Depth)
	}
	if a.MaxItems <= 0 {
		a.MaxItems = 100
	}
	cctx, cancel := ts.rctx(ctx)
	defer cancel()
	r := variablesResult{VariablesReference: a.VariablesReference}
	if r.VariablesReference == 0 {
		frame, err := orLastStop(s, a.FrameID, frameOf)
		if err != nil {
			return variablesResult{}, "", err
		}
		ref, err := scopeRef(cctx, s, frame, a.Scope)
		if err != nil {
			return variablesResult{}, "", err
		}
		r.FrameID, r.VariablesReference, r.Scope = frame, ref, a.Scope
		if r.Scope == "" {
			r.Scope = "locals"
		}
	}
	root, err := expand(cctx, s, r.VariablesReference, a.Depth, a.MaxItems)
	if err != nil {
		return variablesResult{}, "", staleHint(err)
	}
	vars, more := root.Children, root.Truncated
	r.Variables, r.Truncated = vars, more
	if r.Scope == "" {
		r.dropped = root.dropped // a scope's names are all read by the stop's listing
	}
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

// expand lists the children of ref to depth levels, at most max a level,
// under root, a row of ref. A level's containers are asked for all at once
// (at most maxInFlight requests in flight): a stopped thread answers
// variables requests on its 10 ms poll, and one poll serves all that are
// waiting.
func expand(ctx context.Context, s *dap.Session, ref, depth, max int) (root variableView, err error) {
	root = variableView{VariablesReference: ref}
	level := []*variableView{&root}
	for d := 0; d < depth && len(level) > 0; d++ {
		for _, err := range open(ctx, s, level, max) {
			if err != nil {
				return variableView{}, err
			}
		}
		level = containers(level, func(v variableView) bool { return !groups[v.Name] })
	}
	return root, nil
}

// open lists the children of each of level (at most max each, and those
// past max in dropped), all at once; errs[i] is why level[i]'s could not
// be.
func open(ctx context.Context, s *dap.Session, level []*variableView, max int) (errs []error) {
	errs = make([]error, len(level))
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
			row := func(c godap.Variable) variableView {
				return variableView{Name: c.Name, Value: c.Value, Type: c.Type, EvaluateName: c.EvaluateName, VariablesReference: c.VariablesReference}
			}
			if len(members) > max {
				v.dropped = make([]variableView, 0, len(members)-max)
				for _, c := range members[max:] {
					v.dropped = append(v.dropped, row(c))
				}
				members, v.Truncated = members[:max], true
			}
			v.Children = make([]variableView, 0, len(members)+len(grouped))
			for _, c := range append(members, grouped...) {
				v.Children = append(v.Children, row(c))
			}
		}()
	}
	wg.Wait()
	return errs
}

// containers are the children of level that have children of their own
// and that want takes.
func containers(level []*variableView, want func(variableView) bool) []*variableView {
	var next []*variableView
	for _, v := range level {
		for i := range v.Children {
			c := &v.Children[i]
			if c.VariablesReference > 0 && want(*c) {
				next = append(next, c)
			}
		}
	}
	return next
}

// maxInFlight bounds the variables requests of one expansion in flight.
const maxInFlight = 32

func writeVars(sb *strings.Builder, vs []variableView, indent int) {
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

type evaluateArgs struct {
	Target
	Expression string `json:"expression" jsonschema:"Python expression (or statement, with context repl)"`
	FrameID    int    `json:"frame_id,omitempty" jsonschema:"frame (default: the top frame of the last stop)"`
	Context    string `json:"context,omitempty" jsonschema:"watch (default), repl, hover or clipboard"`
}

type evaluateResult struct {
	Result             string `json:"result"`
	Type               string `json:"type,omitempty"`
	VariablesReference int    `json:"variables_reference,omitempty"`
}

func evaluate(ctx context.Context, ts *Toolset, s *dap.Session, a evaluateArgs) (evaluateResult, string, error) {
	if a.Expression == "" {
		return evaluateResult{}, "", errors.New("expression is required")
	}
	switch a.Context {
	case "":
		a.Context = "watch"
	case "watch", "repl", "hover", "clipboard":
	default:
		return evaluateResult{}, "", fmt.Errorf("context %q: use watch, repl, hover or clipboard", a.Context)
	}
	frame, err := orLastStop(s, a.FrameID, frameOf)
	if err != nil {
		return evaluateResult{}, "", err
	}
	cctx, cancel := ts.rctx(ctx)
	defer cancel()
	body, err := s.Evaluate(cctx, a.Expression, frame, a.Context)
	if err != nil {
		return evaluateResult{}, "", ts.stuck(ctx, err)
	}
	r := evaluateResult{Result: body.Result, Type: body.Type, VariablesReference: body.VariablesReference}
	text := r.Result
	if r.Type != "" {
		text = r.Type + ": " + text
	}
	if text == "" {
		text = "(no value)"
	}
	return r, text, nil
}

type setVariableArgs struct {
	Target
	Name               string `json:"name" jsonschema:"variable name"`
	Value              string `json:"value" jsonschema:"new value, a Python expression"`
	FrameID            int    `json:"frame_id,omitempty" jsonschema:"frame (default: the top frame of the last stop)"`
	Scope              string `json:"scope,omitempty" jsonschema:"locals (default) or globals"`
	VariablesReference int    `json:"variables_reference,omitempty" jsonschema:"container holding the variable, instead of a scope"`
}

func setVariable(ctx context.Context, ts *Toolset, s *dap.Session, a setVariableArgs) (evaluateResult, string, error) {
	if a.Name == "" || a.Value == "" {
		return evaluateResult{}, "", errors.New("name and value are required")
	}
	cctx, cancel := ts.rctx(ctx)
	defer cancel()
	ref := a.VariablesReference
	if ref == 0 {
		frame, err := orLastStop(s, a.FrameID, frameOf)
		if err != nil {
			return evaluateResult{}, "", err
		}
		if ref, err = scopeRef(cctx, s, frame, a.Scope); err != nil {
			return evaluateResult{}, "", err
		}
	}
	body, err := s.SetVariable(cctx, ref, a.Name, a.Value)
	if err != nil {
		return evaluateResult{}, "", ts.stuck(ctx, err)
	}
	return evaluateResult{Result: body.Value, Type: body.Type, VariablesReference: body.VariablesReference},
		fmt.Sprintf("%s = %s", a.Name, body.Value), nil
}

type exceptionInfoArgs struct {
	Target
	ThreadID int `json:"thread_id,omitempty" jsonschema:"thread (default: the one that stopped last)"`
}

type exceptionInfoResult struct {
	ExceptionID string `json:"exception_id"`
	Description string `json:"description,omitempty"`
	BreakMode   string `json:"break_mode"`
	StackTrace  string `json:"stack_trace,omitempty"`
}

func exceptionInfo(ctx context.Context, ts *Toolset, s *dap.Session, a exceptionInfoArgs) (exceptionInfoResult, string, error) {
	thread, err := orLastStop(s, a.ThreadID, threadOf)
	if err != nil {
		return exceptionInfoResult{}, "", err
	}
	// Ask debugpy only about a thread that stopped on an exception: for
	// another, pydevd answers with nothing and prints a traceback into the
	// program's stderr.
	threads, _ := s.Stops()
	for _, st := range threads {
		if st.ThreadID == thread && st.Reason != "exception" {
			return exceptionInfoResult{}, "", fmt.Errorf("thread %d stopped on a %s, not on an exception: set exception breakpoints (debugpy_set_exception_breakpoints) and continue", thread, st.Reason)
		}
	}
	cctx, cancel := ts.rctx(ctx)
	defer cancel()
	body, err := s.ExceptionInfo(cctx, thread)
	if err != nil {
		return exceptionInfoResult{}, "", fmt.Errorf("%w: did thread %d stop on an exception? call debugpy_session_status", err, thread)
	}
	r := exceptionInfoResult{ExceptionID: body.ExceptionId, Description: body.Description, BreakMode: string(body.BreakMode)}
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

package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/debugpy-guard/debugpy-guard/dap"
	"github.com/debugpy-guard/debugpy-guard/engine"
	"github.com/debugpy-guard/debugpy-guard/engine/approval"
)

// PolicyGate is the gate of `serve`: engine.Gate runs each call's journey
// (decide, approve, record, run, result phase, record); PolicyGate adapts
// MCP to it: who the client is, the debug session the call is for, asking a
// person by MCP elicitation, and MCP results.
type PolicyGate struct {
	gate     *engine.Gate
	ts       *Toolset
	sessions *Sessions

	mu    sync.Mutex
	lists map[listKey]*stopList // the listings of each session's latest stop (stops.go)
}

// NewPolicyGate makes the gate for the tools of ts.
func NewPolicyGate(ts *Toolset, g *engine.Gate) *PolicyGate {
	return &PolicyGate{gate: g, ts: ts, sessions: ts.Sessions, lists: map[listKey]*stopList{}}
}

// Bounds on a call's arguments: beyond them the call is refused before any
// module sees it (plugins/ABI.md, limits). No tool's arguments come close.
const (
	maxArguments = 1 << 20
	maxNesting   = 64
)

// Guard implements Gate.
func (g *PolicyGate) Guard(ctx context.Context, call Call, run func(context.Context) *mcp.CallToolResult) *mcp.CallToolResult {
	tc := engine.ToolCall{Tool: call.Tool, Category: call.Category, Arguments: call.Arguments,
		Malformed: call.Malformed, Derived: call.Derived}
	if readsValues[call.Tool] || listedFirst[call.Tool] {
		tc.Listing = func(ctx context.Context) ([]engine.Seen, error) {
			seen, err := g.stopsSeen(ctx, call, beforeDecision)
			if err != nil {
				err = fmt.Errorf("%w; when a variable's repr is slower than the request timeout, a user can raise DEBUGPY_GUARD_REQUEST_TIMEOUT", err)
			}
			return seen, err
		}
	}
	if cs := server.ClientSessionFromContext(ctx); cs != nil {
		tc.MCPSession = cs.SessionID()
		if ci, ok := cs.(server.SessionWithClientInfo); ok {
			info := ci.GetClientInfo()
			tc.Client = engine.ClientInfo{Name: info.Name, Version: info.Version}
		}
	}
	if info := server.RequestProtocolInfoFromContext(ctx); info != nil && info.ClientInfo != nil {
		tc.Client = engine.ClientInfo{Name: info.ClientInfo.Name, Version: info.ClientInfo.Version}
	}
	// A call that runs at the stop shows values as of the stop listed for
	// its secrets, and was judged (and approved) there. still says whether
	// the program is still where it was when the call came: it runs only
	// if so, holding the program there (dap.Session.Hold), and a stop that
	// came while it ran (another thread's) withholds its result.
	var still func() bool
	var hold func() (release func())
	if s := call.Debug; s != nil {
		in := s.Info()
		tc.DebugSession = &engine.DebugSession{Name: in.Name, Host: in.Host, Port: in.Port, PID: in.PID, State: in.State}
		tc.Stopped = func() string { return stoppedAt(s) }
		if atTheStop[call.Tool] {
			still, hold = s.Still(), s.Hold
		}
	}
	var asker engine.Asker
	if elicitationCapable(ctx) {
		asker = elicitor{req: call.Request}
	}
	res := g.gate.Guard(ctx, tc, asker, func(ctx context.Context) engine.Result {
		if hold != nil {
			defer hold()()
		}
		seen, err := g.stopsSeen(ctx, call, beforeRun) // the stop it reads, and the paths its code reads (stops.go)
		if err != nil {
			return engine.Errorf("%s did not run: the variables of the frame it reads, read first to learn the secrets they hold, could not be read (%v). Check its frame_id (debugpy_stack_trace lists the frames), then try again; when a variable's repr is slower than the request timeout, a user can raise DEBUGPY_GUARD_REQUEST_TIMEOUT.", call.Tool, err)
		}
		if still != nil && !still() {
			return engine.Errorf("%s did not run: the program ran on or stopped again after the call came (another call ran it on, or another thread stopped), so it would run where it was not judged, nor approved. Call it again.", call.Tool)
		}
		var unanswered atomic.Bool // the program is stuck: its answer is ours, with no value of it
		var before []engine.Before // what a read of output or source continues (output.go, source.go)
		r := fromMCP(run(context.WithValue(context.WithValue(ctx, unansweredKey{}, &unanswered), beforeKey{}, &before)))
		r.Before = before
		r.ReadMore = readMore[call.Tool]
		if changesVariables(call) {
			g.forget(call.Debug) // the next call that reads values lists the stop again (stops.go)
		}
		if still != nil && !still() {
			return engine.Errorf("%s ran, but the program stopped again while it ran (another thread stopped, or debugpy ran it on): what it shows may come from that stop, whose values were not read for the secrets they hold, so it is not shown. Call it again.", call.Tool)
		}
		if unanswered.Load() {
			return r
		}
		shown, err := g.shownSeen(ctx, call, r) // what it shows that the stop's listing did not read (shown.go)
		if err != nil {
			more := readMore[call.Tool]
			if more == "" {
				more = "read the values it shows one at a time"
			}
			return engine.Errorf("%s ran, but its result is withheld: %v. To read it, %s.", call.Tool, err, more)
		}
		after, err := g.stopsSeen(ctx, call, afterRun) // the stops with an exception's text, the call's own among them
		if err != nil {
			return engine.Errorf("%s ran, but its result is withheld: the variables of the stopped frame, read to learn the secrets they hold, could not be read (%v). The next call reads them again; when a variable's repr is slower than the request timeout, a user can raise DEBUGPY_GUARD_REQUEST_TIMEOUT.", call.Tool, err)
		}
		r.Seen = append(append(seen, shown...), after...)
		if call.Tool == "debugpy_launch" && !r.IsError {
			r.Seen = append(r.Seen, launchedSeen(call))
		}
		return r
	})
	return toMCP(res)
}

// stoppedAt is where the program of s is, for an approval's binding and
// the person who answers it: the session by name and number (a name is
// used again by a later session, which may run another program, or the
// same one with other values: its number is not), then the stop's number
// (each stop has its own) and its place, or that it is not stopped. Never
// "": a call approved while its program runs (a breakpoint's condition, a
// file read) is bound to that session too, and runs in no other. Not
// stopText: that adds an exception's text, which can hold a secret, and a
// call held for a person returns before any mask.
func stoppedAt(s *dap.Session) string {
	at := fmt.Sprintf("session %s #%d", s.Name(), s.Serial())
	_, last := s.Stops()
	if last == nil {
		return at + ", not stopped"
	}
	at += fmt.Sprintf(", stop %d: %s:%d", last.Gen, last.File, last.Line)
	if last.Function != "" {
		at += " in " + last.Function
	}
	return at
}

// readMore says, per tool, how to read the rest of a result too long to
// show whole (engine.GateOptions.MaxResult).
var readMore = map[string]string{
	"debugpy_evaluate":       "evaluate a part of it: a slice such as x[:2000], len(x), one key or attribute",
	"debugpy_variables":      "ask for less: a lower depth or max_items, or one entry by its variables_reference",
	"debugpy_output":         "read on from a cursor with since, and fewer entries with max_items",
	"debugpy_source":         "ask for fewer lines: line and context_lines",
	"debugpy_stack_trace":    "ask for fewer frames with levels, and page with start_frame",
	"debugpy_exception_info": "evaluate parts of the exception with debugpy_evaluate",
	"debugpy_threads":        "ask for one thread's stack with debugpy_stack_trace",
}

func fromMCP(r *mcp.CallToolResult) engine.Result {
	return engine.Result{IsError: r.IsError, Text: Text(r), Structured: r.StructuredContent}
}

func toMCP(r engine.Result) *mcp.CallToolResult {
	if raw, ok := r.Raw.(*mcp.CallToolResult); ok {
		return raw
	}
	return &mcp.CallToolResult{IsError: r.IsError, StructuredContent: r.Structured, Content: []mcp.Content{mcp.NewTextContent(r.Text)}}
}

// elicitationCapable reports whether the client declared form elicitation.
func elicitationCapable(ctx context.Context) bool {
	var caps *mcp.ClientCapabilities
	if info := server.RequestProtocolInfoFromContext(ctx); info != nil && info.Modern {
		caps = info.ClientCapabilities
	} else if cs, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo); ok {
		c := cs.GetClientCapabilities()
		caps = &c
	}
	return caps != nil && caps.Elicitation != nil && (caps.Elicitation.Form != nil || caps.Elicitation.URL == nil)
}

// elicitationKey names the one question of an approval elicitation.
const elicitationKey = "approve"

// elicitor asks a person by MCP elicitation (form mode, one boolean). A
// client on protocol 2026-07-28 or later gets an input_required result and
// retries the call with the answer (multi round-trip); an older one gets an
// elicitation request while the call waits.
type elicitor struct{ req mcp.CallToolRequest }

func (e elicitor) Ask(ctx context.Context, q engine.Question) (engine.Answer, *engine.Result, error) {
	params := mcp.ElicitationParams{Mode: mcp.ElicitationModeForm, Message: q.Message,
		RequestedSchema: map[string]any{"type": "object", "required": []string{elicitationKey},
			"properties": map[string]any{elicitationKey: map[string]any{"type": "boolean", "title": "Run this call",
				"description": "true runs " + q.Tool + " once with exactly these arguments"}}}}
	var answer *mcp.ElicitationResult
	if server.IsModernRequest(ctx) {
		state := e.req.Params.RequestState
		if state == "" {
			id, err := q.Hold()
			if err != nil {
				return engine.Answer{}, nil, err
			}
			res := server.NewInputRequestBuilder(id).Elicit(elicitationKey, params).ToolResult()
			return engine.Answer{ID: id}, &engine.Result{Raw: res}, nil
		}
		err := q.Take(state)
		a := engine.Answer{ID: state}
		switch {
		case errors.Is(err, approval.ErrExpired):
			a.State = engine.TimedOut
			return a, nil, nil
		case err != nil:
			a.State, a.Why = engine.Failed, "The approval answer is not valid: "+err.Error()+"."
			return a, nil, nil
		}
		if answer = server.ElicitationResponse(e.req.Params.InputResponses, elicitationKey); answer == nil {
			a.State, a.Why = engine.Failed, "The client retried without the user's answer."
			return a, nil, nil
		}
		return answerOf(answer, a), nil, nil
	}
	srv := server.ServerFromContext(ctx)
	if srv == nil {
		return engine.Answer{}, nil, errors.New("elicitation: no MCP server in the call's context")
	}
	ectx, cancel := context.WithTimeout(ctx, q.Timeout)
	defer cancel()
	answer, err := srv.RequestElicitation(ectx, mcp.ElicitationRequest{
		Request: mcp.Request{Method: string(mcp.MethodElicitationCreate)}, Params: params})
	switch {
	case err != nil && ectx.Err() != nil && ctx.Err() == nil:
		return engine.Answer{State: engine.TimedOut}, nil, nil
	case err != nil:
		return engine.Answer{}, nil, err
	}
	return answerOf(answer, engine.Answer{}), nil, nil
}

func answerOf(r *mcp.ElicitationResult, a engine.Answer) engine.Answer {
	switch {
	case r.Action == mcp.ElicitationResponseActionAccept && approvedIn(r.Content):
		a.State = engine.Approved
	case r.Action == mcp.ElicitationResponseActionCancel:
		a.State = engine.Cancelled
	default:
		a.State = engine.Declined
	}
	return a
}

// approvedIn reads the form's answer: {"approve": true}.
func approvedIn(content any) bool {
	m, ok := content.(map[string]any)
	if !ok {
		raw, err := json.Marshal(content)
		if err != nil || json.Unmarshal(raw, &m) != nil {
			return false
		}
	}
	v, _ := m[elicitationKey].(bool)
	return v
}

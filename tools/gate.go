package tools

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/debugpy-guard/debugpy-guard/engine"
	"github.com/debugpy-guard/debugpy-guard/engine/approval"
	"github.com/debugpy-guard/debugpy-guard/engine/audit"
)

// Policy is what the policy gate needs of the engine: a decision and the
// config in force (engine.Live, which a reload may swap).
type Policy interface {
	Decide(ctx context.Context, call engine.Call) engine.Decision
	Config() *engine.Config
}

// PolicyGate is the gate of `serve`: every call is decided by the policy
// (phase call), held for a person when the decision is approve, recorded in
// the audit log before it runs, run, decided again on its result (phase
// result: withheld or rewritten), and recorded again.
type PolicyGate struct {
	policy    Policy
	audit     *audit.Log
	approvals *approval.Store
	sessions  *Sessions
	log       *slog.Logger
	cli       bool // the approval socket is up: the cli channel can be offered
	calls     atomic.Uint64
	prefix    string
}

// GateOptions wire a PolicyGate.
type GateOptions struct {
	Audit     *audit.Log      // required: a call that cannot be recorded is denied
	Approvals *approval.Store // the calls held for a person
	// CLI says the approval socket is serving Approvals, so a call can be
	// approved with `debugpy-guard approve ID`.
	CLI bool
	Log *slog.Logger
}

// NewPolicyGate makes the gate for the tools of ts. It panics without an
// audit log: no call runs unrecorded.
func NewPolicyGate(ts *Toolset, p Policy, o GateOptions) *PolicyGate {
	if o.Audit == nil {
		panic("tools.NewPolicyGate: an audit log is required")
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.Approvals == nil {
		o.Approvals = approval.NewStore()
	}
	return &PolicyGate{policy: p, audit: o.Audit, approvals: o.Approvals, sessions: ts.Sessions, log: o.Log,
		cli: o.CLI, prefix: strconv.Itoa(os.Getpid()) + "-"}
}

// Bounds on a call's arguments: beyond them the call is denied before any
// module sees it (plugins/ABI.md, limits). No tool's arguments come close.
const (
	maxArguments = 1 << 20
	maxNesting   = 64
	// maxAuditedArguments bounds the arguments an audit record keeps in full
	// ([audit] arguments = "full"); larger ones are kept as their hash.
	maxAuditedArguments = 64 << 10
)

// Guard implements Gate.
func (g *PolicyGate) Guard(ctx context.Context, call Call, run func(context.Context) *mcp.CallToolResult) *mcp.CallToolResult {
	t0 := time.Now()
	cfg := g.policy.Config()
	ec := g.engineCall(ctx, call)
	rec := audit.Entry{Kind: "decision", Call: g.prefix + strconv.FormatUint(g.calls.Add(1), 10),
		Session: ec.SessionID, Client: ec.Client.Name, Tool: call.Tool, Category: call.Category}
	switch mode := cfg.Audit.Arguments; {
	case mode == "full" && len(call.Arguments) <= maxAuditedArguments:
		rec.Arguments = call.Arguments
	case mode == "full" || mode == "hash": // too large to keep in full: its hash
		sum := sha256.Sum256(call.Arguments)
		rec.ArgumentsSHA256 = hex.EncodeToString(sum[:])
	}

	var d engine.Decision
	malformed := true
	switch {
	case call.Malformed != nil:
		d = engine.Decision{Decision: engine.Deny, Reasons: []string{"malformed arguments: " + call.Malformed.Error()}}
	case cfg.Hides(call.Tool):
		d = engine.Decision{Decision: "hidden", Reasons: []string{"the policy config hides " + call.Tool}}
	default:
		malformed = false
		d = g.policy.Decide(ctx, ec)
	}
	rec.Decision, rec.Reasons, rec.Modules, rec.Monitor = d.Decision, d.Reasons, d.Modules, monitored(d)
	g.log.Info("decision", "call", rec.Call, "tool", call.Tool, "decision", d.Decision, "reasons", strings.Join(d.Reasons, "; "))

	var stop *mcp.CallToolResult // the result when the call does not run
	switch d.Decision {
	case engine.Allow:
	case engine.Approve:
		stop, rec.Approval = g.approve(ctx, call, ec, d, cfg)
	case "hidden":
		stop = deniedResult(call.Tool, "is hidden by the policy config", d, "A user can show it by removing it from `hide` in the policy config (--config).")
	default: // deny, and anything unexpected: fail closed
		if malformed {
			stop = deniedResult(call.Tool, "denied", d, "No tool takes arguments like these: send the arguments its inputSchema describes.")
			break
		}
		if rateLimited(d) {
			rec.Decision = "rate-limited"
		}
		stop = deniedResult(call.Tool, "denied by policy", d, "A user can change this in the policy config (--config); `debugpy-guard check` shows which modules apply to which tool.")
	}
	if err := g.audit.Append(rec, true); err != nil {
		g.log.Error("audit log: the call is denied", "call", rec.Call, "err", err)
		res := errorResult(fmt.Sprintf("%s denied: the audit log cannot record it (%v), and no call runs unrecorded. A user must fix the audit log ([audit] path).", call.Tool, err))
		g.outcome(rec, "not run", res, t0)
		return res
	}
	if stop != nil {
		outcome := "not run"
		if rec.Approval != nil && rec.Approval.State == approval.Pending {
			outcome = "held for approval"
		}
		g.outcome(rec, outcome, stop, t0)
		return stop
	}
	res := run(ctx)
	res, outcome, monitor := g.checkResult(ctx, ec, res)
	g.outcome(rec, outcome, res, t0, monitor...)
	return res
}

// outcome records what became of a call (and what monitor-mode modules said
// of its result); its fsync may follow shortly.
func (g *PolicyGate) outcome(dec audit.Entry, outcome string, res *mcp.CallToolResult, t0 time.Time, monitor ...audit.Verdict) {
	e := audit.Entry{Kind: "outcome", Call: dec.Call, Session: dec.Session, Tool: dec.Tool, Outcome: outcome,
		Monitor: monitor, DurationMS: float64(time.Since(t0).Microseconds()) / 1000}
	if res != nil && res.IsError && outcome != "not run" && outcome != "held for approval" {
		e.Error = truncate(Text(res), 500)
	}
	if err := g.audit.Append(e, false); err != nil {
		g.log.Error("audit log: outcome not recorded", "call", dec.Call, "err", err)
	}
}

// monitored are the verdicts of the modules in monitor mode: they do not
// count, and the audit log is where a team reads them.
func monitored(d engine.Decision) []audit.Verdict {
	var out []audit.Verdict
	for _, st := range d.Trace {
		if st.Mode == "monitor" {
			out = append(out, audit.Verdict{Module: st.Module, Verdict: st.Verdict, Reason: st.Reason})
		}
	}
	return out
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// rateLimited: a deny whose every reason is a rate limit ("MODULE: rate
// limit: ...", as the built-in ratelimit says) is recorded as rate-limited.
func rateLimited(d engine.Decision) bool {
	for _, r := range d.Reasons {
		if _, after, ok := strings.Cut(r, ": "); !ok || !strings.HasPrefix(after, "rate limit") {
			return false
		}
	}
	return len(d.Reasons) > 0
}

func (g *PolicyGate) engineCall(ctx context.Context, call Call) engine.Call {
	ec := engine.Call{Phase: engine.PhaseCall, Tool: call.Tool, Category: call.Category, Arguments: call.Arguments,
		Derived: call.Derived, Time: time.Now()}
	if cs := server.ClientSessionFromContext(ctx); cs != nil {
		ec.SessionID = cs.SessionID()
		if ci, ok := cs.(server.SessionWithClientInfo); ok {
			info := ci.GetClientInfo()
			ec.Client = engine.ClientInfo{Name: info.Name, Version: info.Version}
		}
	}
	if info := server.RequestProtocolInfoFromContext(ctx); info != nil && info.ClientInfo != nil {
		ec.Client = engine.ClientInfo{Name: info.ClientInfo.Name, Version: info.ClientInfo.Version}
	}
	if s, err := g.sessions.Get(call.Session); err == nil {
		in := s.Info()
		ec.DebugSession = &engine.DebugSession{Name: in.Name, Host: in.Host, Port: in.Port, PID: in.PID, State: in.State}
	}
	return ec
}

// elicitationKey names the one question of an approval elicitation.
const elicitationKey = "approve"

// approve holds a call for a person. It returns nil when the person approved
// it (the call runs), else the result to return, and the approval's record.
func (g *PolicyGate) approve(ctx context.Context, call Call, ec engine.Call, d engine.Decision, cfg *engine.Config) (*mcp.CallToolResult, *audit.Approval) {
	timeout := cfg.Approval.Wait()
	if _, err := approval.Show(call.Arguments); err != nil {
		return deniedResult(call.Tool, "cannot be put to a person", d, err.Error()+". Send shorter arguments."), &audit.Approval{Channel: "none", State: "denied"}
	}
	b := approval.Bind(ec.SessionID, call.Tool, call.Arguments)
	channels := cfg.Approval.Channels
	if slices.Contains(channels, "elicitation") && elicitationCapable(ctx) {
		res, rec, ok := g.elicit(ctx, call, b, d, timeout)
		if ok || !slices.Contains(channels, "cli") || !g.cli {
			return res, rec
		}
		g.log.Warn("elicitation failed; falling back to the cli channel", "tool", call.Tool, "err", Text(res))
	}
	if slices.Contains(channels, "cli") && g.cli {
		r := g.approvals.Hold("cli", b, call.Arguments, d.Reasons, timeout)
		rec := &audit.Approval{ID: r.ID, Channel: "cli", State: r.State}
		switch r.State {
		case approval.Approved:
			return nil, rec
		case approval.Denied:
			return deniedResult(call.Tool, "was denied by a person (approval "+r.ID+", `debugpy-guard deny`)", d,
				"Do not retry it unchanged; ask the user what they want instead."), rec
		}
		var sb strings.Builder
		fmt.Fprintf(&sb, "%s needs a person's approval", call.Tool)
		if len(d.Modules) > 0 {
			fmt.Fprintf(&sb, " (module %s)", strings.Join(d.Modules, ", "))
		}
		fmt.Fprintf(&sb, ": %s.\nIt did not run. Approval id: %s. Ask the user to run\n\n    debugpy-guard approve %s\n\n(or `debugpy-guard deny %s`), then call %s again with the same arguments within %v. `debugpy-guard approvals` lists the calls waiting.",
			strings.Join(d.Reasons, "; "), r.ID, r.ID, r.ID, call.Tool, timeout)
		res := errorResult(sb.String())
		res.StructuredContent = map[string]any{"decision": "approve", "approval_id": r.ID,
			"command": "debugpy-guard approve " + r.ID, "expires": r.Expires.UTC().Format(time.RFC3339)}
		return res, rec
	}
	return deniedResult(call.Tool, "needs a person's approval, and no approval channel is available", d,
			"The client does not support elicitation and the cli channel is off ([approval] channels), so the call is denied. A user can enable a channel or allow the call in the policy config (--config)."),
		&audit.Approval{Channel: "none", State: "denied"}
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

// elicit asks the user through the MCP client. A client on protocol
// 2026-07-28 or later gets an input_required result and retries the call
// with the answer (multi round-trip); an older one gets an elicitation
// request while the call waits. ok is false when the elicitation itself
// failed (not when the user said no), so that another channel may be tried.
func (g *PolicyGate) elicit(ctx context.Context, call Call, b approval.Binding, d engine.Decision, timeout time.Duration) (res *mcp.CallToolResult, rec *audit.Approval, ok bool) {
	rec = &audit.Approval{Channel: "elicitation"}
	params := mcp.ElicitationParams{Mode: mcp.ElicitationModeForm, Message: elicitationMessage(call, d),
		RequestedSchema: map[string]any{"type": "object", "required": []string{elicitationKey},
			"properties": map[string]any{elicitationKey: map[string]any{"type": "boolean", "title": "Run this call",
				"description": "true runs " + call.Tool + " once with exactly these arguments"}}}}
	var answer *mcp.ElicitationResult
	if server.IsModernRequest(ctx) {
		state := call.Request.Params.RequestState
		if state == "" {
			r := g.approvals.Hold("elicitation", b, call.Arguments, d.Reasons, timeout)
			rec.ID, rec.State = r.ID, approval.Pending
			return server.NewInputRequestBuilder(r.ID).Elicit(elicitationKey, params).ToolResult(), rec, true
		}
		r, err := g.approvals.Take(state, b)
		rec.ID = r.ID
		switch {
		case errors.Is(err, approval.ErrExpired):
			rec.State = "timed out"
			return g.unanswered(call, d, "the user did not answer within "+timeout.String()), rec, true
		case err != nil:
			rec.State = "failed"
			return deniedResult(call.Tool, "was not approved", d, "The approval answer is not valid: "+err.Error()+". Call it again to ask the user again."), rec, true
		}
		answer = server.ElicitationResponse(call.Request.Params.InputResponses, elicitationKey)
		if answer == nil {
			rec.State = "failed"
			return deniedResult(call.Tool, "was not approved", d, "The client retried without the user's answer. Call it again to ask the user again."), rec, true
		}
	} else {
		srv := server.ServerFromContext(ctx)
		if srv == nil {
			rec.State = "failed"
			return errorResult("elicitation: no MCP server in the call's context"), rec, false
		}
		ectx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		var err error
		answer, err = srv.RequestElicitation(ectx, mcp.ElicitationRequest{
			Request: mcp.Request{Method: string(mcp.MethodElicitationCreate)}, Params: params})
		switch {
		case err != nil && ectx.Err() != nil && ctx.Err() == nil:
			rec.State = "timed out"
			return g.unanswered(call, d, "the user did not answer within "+timeout.String()), rec, true
		case err != nil:
			rec.State = "failed"
			return errorResult(fmt.Sprintf("%s needs approval, and asking the user failed: %v", call.Tool, err)), rec, false
		}
	}
	switch {
	case answer.Action == mcp.ElicitationResponseActionAccept && approvedIn(answer.Content):
		rec.State = approval.Approved
		return nil, rec, true
	case answer.Action == mcp.ElicitationResponseActionCancel:
		rec.State = "cancelled"
		return deniedResult(call.Tool, "was not run: the user cancelled the approval prompt", d,
			"Ask the user before calling it again."), rec, true
	default:
		rec.State = "declined"
		return deniedResult(call.Tool, "was declined by the user", d,
			"Do not retry it unchanged; ask the user what they want instead."), rec, true
	}
}

func (g *PolicyGate) unanswered(call Call, d engine.Decision, why string) *mcp.CallToolResult {
	return deniedResult(call.Tool, "was not run: "+why, d, "Call it again to ask the user again.")
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

// elicitationMessage shows the person every argument, in full (approve
// refused the call before this when they are too long to show).
func elicitationMessage(call Call, d engine.Decision) string {
	args, _ := approval.Show(call.Arguments)
	return fmt.Sprintf("An AI agent wants to run %s (%s) with these arguments, every one shown in full:\n%s\n\nThe policy asks a person because: %s.\nApprove it to run it once.",
		call.Tool, call.Category, args, strings.Join(d.Reasons, "; "))
}

// checkResult runs the result phase on the structured result (or, for an
// error result, on its text) and says what became of it, and what the
// modules in monitor mode said.
func (g *PolicyGate) checkResult(ctx context.Context, ec engine.Call, res *mcp.CallToolResult) (*mcp.CallToolResult, string, []audit.Verdict) {
	outcome := "ok"
	if res.IsError {
		outcome = "error"
	}
	var body any = res.StructuredContent
	if res.IsError || body == nil {
		body = map[string]any{"error": Text(res)}
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return deniedResult(ec.Tool, "result withheld by policy", engine.Decision{Reasons: []string{"engine: cannot encode the result: " + err.Error()}}, ""), "withheld", nil
	}
	ec.Phase, ec.Result = engine.PhaseResult, raw
	d := g.policy.Decide(ctx, ec)
	g.log.Info("decision", "phase", "result", "tool", ec.Tool, "decision", d.Decision, "reasons", strings.Join(d.Reasons, "; "))
	monitor := monitored(d)
	if d.Decision != engine.Allow {
		return deniedResult(ec.Tool, "result withheld by policy", d, "The call ran; its result is not shown. A user can change this in the policy config (--config)."), "withheld", monitor
	}
	if d.Result == nil {
		return res, outcome, monitor
	}
	// Rewritten (redacted): the text shows the rewritten result too, since
	// the original text would repeat what was masked.
	var rewritten any
	if err := json.Unmarshal(d.Result, &rewritten); err != nil {
		return deniedResult(ec.Tool, "result withheld by policy", engine.Decision{Reasons: []string{"a module rewrote the result into invalid JSON"}, Modules: d.Modules}, ""), "withheld", monitor
	}
	out := &mcp.CallToolResult{IsError: res.IsError}
	text := string(d.Result)
	if m, ok := rewritten.(map[string]any); ok && res.IsError {
		text = fmt.Sprint(m["error"])
	} else {
		out.StructuredContent = rewritten
	}
	out.Content = []mcp.Content{mcp.NewTextContent("(rewritten by policy: " + strings.Join(d.Reasons, "; ") + ")\n" + text)}
	return out, "rewritten", monitor
}

// deniedResult is the isError result of a call the policy stopped: what
// happened, the modules, the reasons, and what the user could change.
func deniedResult(tool, what string, d engine.Decision, next string) *mcp.CallToolResult {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", tool, what)
	if len(d.Modules) > 0 {
		fmt.Fprintf(&b, " (module %s)", strings.Join(d.Modules, ", "))
	}
	if len(d.Reasons) > 0 {
		fmt.Fprintf(&b, ": %s", strings.Join(d.Reasons, "; "))
	}
	b.WriteString(".")
	if next != "" {
		b.WriteString(" " + next)
	}
	return errorResult(b.String())
}

package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/debugpy-guard/debugpy-guard/engine/approval"
	"github.com/debugpy-guard/debugpy-guard/engine/audit"
	"github.com/debugpy-guard/debugpy-guard/plugins"
	"github.com/debugpy-guard/debugpy-guard/plugins/abi"
)

// fakePolicy decides by phase, as told.
type fakePolicy struct {
	cfg          *Config
	call, result Decision
}

func (p *fakePolicy) Config() *Config { return p.cfg }
func (p *fakePolicy) Chain(tool, phase string) ([]string, Verdict) {
	return []string{"m"}, ""
}
func (p *fakePolicy) Acquire() (Decider, func()) { return p, func() {} }
func (p *fakePolicy) Decide(_ context.Context, c Call) Decision {
	if c.Phase == PhaseResult {
		return p.result
	}
	return p.call
}

// fakeAsker answers as told, or holds the call, or fails to ask.
type fakeAsker struct {
	answer string
	hold   bool
	err    error
}

func (a fakeAsker) Ask(_ context.Context, q Question) (Answer, *Result, error) {
	switch {
	case a.err != nil:
		return Answer{}, nil, a.err
	case a.hold:
		id, err := q.Hold()
		if err != nil {
			return Answer{}, nil, err
		}
		return Answer{ID: id}, &Result{Raw: "input request " + id}, nil
	}
	return Answer{State: a.answer, Why: "the answer was garbled."}, nil, nil
}

func verdict(v Verdict, reason string) Decision {
	return Decision{Verdict: v, Reasons: []string{"m: " + reason}, Modules: []string{"m"},
		Trace: []Step{{Module: "m", Verdict: v, Reason: reason, Mode: "enforce"}}}
}

// limited is d with its modules' steps marked as rate limits.
func limited(d Decision) Decision {
	for i := range d.Trace {
		d.Trace[i].Code = abi.RateLimited
	}
	return d
}

// TestGateJourney walks every branch of a call's journey: what it returns,
// whether the tool ran, and what the audit log recorded.
func TestGateJourney(t *testing.T) {
	allow := verdict(Allow, "fine")
	rewrite := Decision{Verdict: Allow, Reasons: []string{"r: masked"}, Modules: []string{"r"}, Result: json.RawMessage(`{"v":"[redacted]"}`)}
	for _, c := range []struct {
		name          string
		call          ToolCall
		hide          bool
		callD, resD   Decision
		asker         Asker
		cli, badAudit bool
		tool          Result // what the tool returns when it runs
		wantRun       bool
		wantText      []string
		wantDecision  string
		wantApproval  string // the approval's state in the decision record
		wantOutcome   string
	}{
		{name: "malformed", call: ToolCall{Malformed: errors.New("argument \"x\" is given twice")}, callD: allow,
			wantText: []string{"denied", "malformed arguments: argument \"x\" is given twice", "inputSchema"}, wantDecision: string(Deny), wantOutcome: "not run"},
		{name: "hidden", hide: true, callD: allow, wantText: []string{"is hidden by the policy config"}, wantDecision: hidden, wantOutcome: "not run"},
		{name: "allowed", callD: allow, resD: allow, wantRun: true, wantText: []string{"the tool's text"}, wantDecision: string(Allow), wantOutcome: "ok"},
		{name: "allowed, the tool fails", callD: allow, resD: allow, tool: Result{IsError: true, Text: "no session"},
			wantRun: true, wantText: []string{"no session"}, wantDecision: string(Allow), wantOutcome: "error"},
		{name: "denied", callD: verdict(Deny, "no"), wantText: []string{"denied by policy (module m): m: no", "--config"}, wantDecision: string(Deny), wantOutcome: "not run"},
		{name: "rate limited", callD: limited(verdict(Deny, "too many: 3 calls")), wantText: []string{"too many"}, wantDecision: rateLimited, wantOutcome: "not run"},
		// The words of a reason never make a rate limit: only the code does,
		// from every module that denied.
		{name: "a rate limit's words, no code", callD: verdict(Deny, "rate limit: 3 calls"), wantText: []string{"rate limit"}, wantDecision: string(Deny), wantOutcome: "not run"},
		{name: "one of two denials a rate limit", callD: Decision{Verdict: Deny, Reasons: []string{"m: rate limit", "n: no"}, Modules: []string{"m", "n"},
			Trace: []Step{{Module: "m", Verdict: Deny, Code: abi.RateLimited, Mode: "enforce"}, {Module: "n", Verdict: Deny, Mode: "enforce"}}},
			wantText: []string{"n: no"}, wantDecision: string(Deny), wantOutcome: "not run"},
		{name: "unknown verdict fails closed", callD: verdict("maybe", "?"), wantText: []string{"denied by policy"}, wantDecision: "maybe", wantOutcome: "not run"},
		{name: "approved by elicitation", callD: verdict(Approve, "a person"), resD: allow, asker: fakeAsker{answer: Approved},
			wantRun: true, wantDecision: string(Approve), wantApproval: Approved, wantOutcome: "ok"},
		{name: "declined", callD: verdict(Approve, "a person"), asker: fakeAsker{answer: Declined},
			wantText: []string{"was declined by the user"}, wantDecision: string(Approve), wantApproval: Declined, wantOutcome: "not run"},
		{name: "cancelled", callD: verdict(Approve, "a person"), asker: fakeAsker{answer: Cancelled},
			wantText: []string{"cancelled the approval prompt"}, wantDecision: string(Approve), wantApproval: Cancelled, wantOutcome: "not run"},
		{name: "timed out", callD: verdict(Approve, "a person"), asker: fakeAsker{answer: TimedOut},
			wantText: []string{"did not answer within"}, wantDecision: string(Approve), wantApproval: TimedOut, wantOutcome: "not run"},
		{name: "a garbled answer", callD: verdict(Approve, "a person"), asker: fakeAsker{answer: Failed},
			wantText: []string{"was not approved", "garbled"}, wantDecision: string(Approve), wantApproval: Failed, wantOutcome: "not run"},
		{name: "held for an answer on retry", callD: verdict(Approve, "a person"), asker: fakeAsker{hold: true},
			wantDecision: string(Approve), wantApproval: approval.Pending, wantOutcome: "held for approval"},
		{name: "asking fails, the cli channel holds it", callD: verdict(Approve, "a person"), asker: fakeAsker{err: errors.New("client gone")}, cli: true,
			wantText: []string{"Approval id:", "debugpy-guard approve"}, wantDecision: string(Approve), wantApproval: approval.Pending, wantOutcome: "held for approval"},
		{name: "asking fails, no cli", callD: verdict(Approve, "a person"), asker: fakeAsker{err: errors.New("client gone")},
			wantText: []string{"asking the user failed: client gone"}, wantDecision: string(Approve), wantApproval: Failed, wantOutcome: "not run"},
		{name: "held by the cli channel", callD: verdict(Approve, "a person"), cli: true,
			wantText: []string{"needs a person's approval (module m)", "Approval id:"}, wantDecision: string(Approve), wantApproval: approval.Pending, wantOutcome: "held for approval"},
		{name: "no channel", callD: verdict(Approve, "a person"),
			wantText: []string{"no approval channel is available"}, wantDecision: string(Approve), wantApproval: approval.Denied, wantOutcome: "not run"},
		{name: "too long to show", call: ToolCall{Arguments: json.RawMessage(`{"expression":"` + strings.Repeat("x", approval.MaxShown) + `"}`)},
			callD: verdict(Approve, "a person"), asker: fakeAsker{answer: Approved}, cli: true,
			wantText: []string{"cannot be put to a person", "too long to approve"}, wantDecision: string(Approve), wantApproval: approval.Denied, wantOutcome: "not run"},
		{name: "the audit log fails", callD: allow, badAudit: true, wantText: []string{"the audit log cannot record it"}, wantOutcome: "not run"},
		{name: "result withheld", callD: allow, resD: verdict(Deny, "secret"), wantRun: true,
			wantText: []string{"result withheld by policy (module m): m: secret", "The call ran"}, wantDecision: string(Allow), wantOutcome: "withheld"},
		{name: "result rewritten", callD: allow, resD: rewrite, wantRun: true,
			wantText: []string{"(policy r changed 1 value(s) of this result)\nthe tool's text: v = [redacted]"}, wantDecision: string(Allow), wantOutcome: "rewritten"},
		{name: "result rewritten, the text showing it otherwise", callD: allow, resD: rewrite, wantRun: true,
			tool:     Result{Text: "v = s3cret; w = a long value", Structured: map[string]any{"v": "s3cret", "w": "a long value"}},
			wantText: []string{"(rewritten by policy: r: masked)\n{\"v\":\"[redacted]\"}"}, wantDecision: string(Allow), wantOutcome: "rewritten"},
		{name: "result rewritten into bad JSON", callD: allow, resD: Decision{Verdict: Allow, Result: json.RawMessage(`{`)}, wantRun: true,
			wantText: []string{"rewrote the result into invalid JSON"}, wantDecision: string(Allow), wantOutcome: "withheld"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			alog := openAudit(t, dir)
			cfg := &Config{Default: Deny, Audit: AuditConfig{Arguments: "hash"}, Approval: ApprovalConfig{Channels: []string{"elicitation", "cli"}}}
			if c.hide {
				cfg.Hide = []string{"debugpy_evaluate"}
			}
			g := NewGate(&fakePolicy{cfg: cfg, call: c.callD, result: c.resD}, GateOptions{Audit: alog, CLI: c.cli})
			if c.badAudit {
				alog.Close()
			}
			call := c.call
			call.Tool, call.Category = "debugpy_evaluate", "execute"
			if call.Arguments == nil {
				call.Arguments = json.RawMessage(`{"expression":"x"}`)
			}
			tool := c.tool
			if tool.Text == "" {
				tool = Result{Text: "the tool's text: v = s3cret", Structured: map[string]any{"v": "s3cret"}}
			}
			ran := false
			res := g.Guard(context.Background(), call, c.asker, func(context.Context) Result { ran = true; return tool })
			if ran != c.wantRun {
				t.Fatalf("ran %v, want %v: %+v", ran, c.wantRun, res)
			}
			for _, w := range c.wantText {
				if !strings.Contains(res.Text, w) {
					t.Fatalf("text %q lacks %q", res.Text, w)
				}
			}
			if !c.wantRun && res.Raw == nil && !res.IsError {
				t.Fatalf("a call that did not run must be an error: %+v", res)
			}
			if c.badAudit {
				return
			}
			dec, out := journey(t, alog)
			if dec.Decision != c.wantDecision || out.Outcome != c.wantOutcome {
				t.Fatalf("audit: decision %q outcome %q, want %q %q", dec.Decision, out.Outcome, c.wantDecision, c.wantOutcome)
			}
			if got := ""; dec.Approval != nil || c.wantApproval != "" {
				if dec.Approval != nil {
					got = dec.Approval.State
				}
				if got != c.wantApproval {
					t.Fatalf("approval %q, want %q", got, c.wantApproval)
				}
			}
			if dec.ArgumentsSHA256 == "" || bytes.Contains([]byte(dec.Reasons[0]), []byte("s3cret")) {
				t.Fatalf("decision record %+v", dec)
			}
		})
	}
}

// journey closes the log, so that every record handed over is written, and
// reads back the one decision and the one outcome record.
func journey(t *testing.T, alog *audit.Log) (dec, out audit.Entry) {
	t.Helper()
	if err := alog.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(alog.Path())
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var e audit.Entry
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("audit line %q: %v", l, err)
		}
		switch e.Kind {
		case "decision":
			dec = e
		case "outcome":
			out = e
		}
	}
	return dec, out
}

// An approval given on the cli channel runs the same call once: the retry
// runs, the one after it is held again.
func TestGateCLIApprovalRunsOnce(t *testing.T) {
	alog := openAudit(t, t.TempDir())
	store := approval.NewStore()
	cfg := &Config{Audit: AuditConfig{Arguments: "none"}, Approval: ApprovalConfig{Channels: []string{"cli"}}}
	g := NewGate(&fakePolicy{cfg: cfg, call: verdict(Approve, "a person"), result: verdict(Allow, "")}, GateOptions{Audit: alog, Approvals: store, CLI: true})
	call := ToolCall{Tool: "debugpy_launch", Category: "execute", Arguments: json.RawMessage(`{"program":"/x.py"}`), MCPSession: "s"}
	runs := 0
	run := func(context.Context) Result { runs++; return Result{Text: "ran"} }
	first := g.Guard(context.Background(), call, nil, run)
	again := g.Guard(context.Background(), call, nil, run)
	id := first.Structured.(map[string]any)["approval_id"].(string)
	if again.Structured.(map[string]any)["approval_id"] != id || runs != 0 {
		t.Fatalf("a retry before the answer: %v, ran %d", again.Structured, runs)
	}
	if _, err := store.Answer(id, true, time.Minute); err != nil {
		t.Fatal(err)
	}
	// Other arguments are another call: not approved by it.
	other := call
	other.Arguments = json.RawMessage(`{"program":"/y.py"}`)
	if g.Guard(context.Background(), other, nil, run); runs != 0 {
		t.Fatal("an approval ran another call")
	}
	if res := g.Guard(context.Background(), call, nil, run); res.Text != "ran" || runs != 1 {
		t.Fatalf("approved retry: %+v, ran %d", res, runs)
	}
	if res := g.Guard(context.Background(), call, nil, run); !res.IsError || runs != 1 {
		t.Fatalf("an approval is used once: %+v, ran %d", res, runs)
	}
}

// An approval is for what the call reached when the person was asked: the
// same arguments retried after another user's debugpy took the port (or a
// process of another user took the id, or a symlink was turned) are asked
// again, on either channel; retried reaching the same, they run.
func TestGateApprovalIsForWhatTheCallReaches(t *testing.T) {
	attach := func(uid int) *Derived {
		return &Derived{Addresses: []Address{{Argument: "host", Host: "127.0.0.1", Address: "127.0.0.1", Port: 5678, Owner: OwnerOther, UID: uid}}}
	}
	pid := func(uid int) *Derived {
		return &Derived{Processes: []Process{{Argument: "pid", PID: 7, Owner: OwnerOther, UID: uid}}}
	}
	source := func(resolved string) *Derived {
		return &Derived{Paths: []Path{{Argument: "path", Kind: "source", Given: "/tmp/link", Resolved: resolved}}}
	}
	for _, c := range []struct {
		name           string
		approved, then *Derived
	}{
		{"another user's debugpy on the port", attach(65534), attach(65533)},
		{"another user's process under the id", pid(65534), pid(65533)},
		{"a symlink turned", source("/srv/app/main.py"), source("/root/.pgpass")},
	} {
		t.Run(c.name, func(t *testing.T) {
			store := approval.NewStore()
			cfg := &Config{Audit: AuditConfig{Arguments: "none"}, Approval: ApprovalConfig{Channels: []string{"cli"}}}
			g := NewGate(&fakePolicy{cfg: cfg, call: verdict(Approve, "a person"), result: verdict(Allow, "")},
				GateOptions{Audit: openAudit(t, t.TempDir()), Approvals: store, CLI: true})
			call := ToolCall{Tool: "debugpy_session_start", Category: "execute", Arguments: json.RawMessage(`{"port":5678}`), MCPSession: "s", Derived: c.approved}
			runs := 0
			run := func(context.Context) Result { runs++; return Result{Text: "ran"} }
			first := g.Guard(context.Background(), call, nil, run)
			id := first.Structured.(map[string]any)["approval_id"].(string)
			if _, err := store.Answer(id, true, time.Minute); err != nil {
				t.Fatal(err)
			}
			swapped := call
			swapped.Derived = c.then
			res := g.Guard(context.Background(), swapped, nil, run)
			if runs != 0 || !res.IsError || res.Structured.(map[string]any)["approval_id"] == id {
				t.Fatalf("retried reaching another: %+v, ran %d", res, runs)
			}
			if res := g.Guard(context.Background(), call, nil, run); res.Text != "ran" || runs != 1 {
				t.Fatalf("retried reaching the same: %+v, ran %d", res, runs)
			}
			// The elicitation channel's retry (input_required, then the
			// answer with the held id) is bound alike.
			b := approval.Bind("s", call.Tool, "", call.Arguments, reaches(c.approved))
			r, err := store.Hold("elicitation", b, call.Arguments, nil, time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := store.Take(r.ID, approval.Bind("s", call.Tool, "", call.Arguments, reaches(c.then))); err == nil {
				t.Fatal("an elicitation's answer was taken for a call that reaches another")
			}
		})
	}
}

// A call that needs a person when the approvals held are at their bound is
// denied, saying so; it is not held, and nothing runs.
func TestGateDeniesWhenApprovalsAreFull(t *testing.T) {
	alog := openAudit(t, t.TempDir())
	store := approval.NewStore()
	for i := 0; ; i++ {
		if _, err := store.Hold("cli", approval.Bind("s", "t", "", []byte(strconv.Itoa(i)), ""), nil, nil, time.Minute); err != nil {
			break
		}
	}
	held := len(store.Pending())
	cfg := &Config{Audit: AuditConfig{Arguments: "none"}, Approval: ApprovalConfig{Channels: []string{"cli"}}}
	g := NewGate(&fakePolicy{cfg: cfg, call: verdict(Approve, "a person"), result: verdict(Allow, "")}, GateOptions{Audit: alog, Approvals: store, CLI: true})
	call := ToolCall{Tool: "debugpy_launch", Category: "execute", Arguments: json.RawMessage(`{"program":"/x.py"}`), MCPSession: "s"}
	res := g.Guard(context.Background(), call, nil, func(context.Context) Result { t.Fatal("it ran"); return Result{} })
	if !res.IsError || !strings.Contains(res.Text, "none can be asked now") || !strings.Contains(res.Text, "calls already wait for a person") {
		t.Fatalf("result: %+v", res)
	}
	if n := len(store.Pending()); n != held {
		t.Fatalf("%d held, want %d: the call was held", n, held)
	}
}

// questionAsker approves, recording the question, and calls during the
// asking (the agent running the program on while a person reads it).
type questionAsker struct {
	asked  *string
	during func()
}

func (a questionAsker) Ask(_ context.Context, q Question) (Answer, *Result, error) {
	*a.asked = q.Message
	if a.during != nil {
		a.during()
	}
	return Answer{State: Approved}, nil, nil
}

// An approval binds to the stop the program was at when the person was
// asked: the question says where; a call approved on the cli channel and
// retried at another stop is held again; one approved by elicitation while
// the program ran on to another stop does not run.
func TestGateApprovalBindsToTheStop(t *testing.T) {
	stop := "session default, stop 4: /app.py:3 in <module>"
	call := ToolCall{Tool: "debugpy_evaluate", Category: "execute", Arguments: json.RawMessage(`{"expression":"record.append(i)"}`), MCPSession: "s",
		Stopped: func() string { return stop }}
	runs := 0
	run := func(context.Context) Result { runs++; return Result{Text: "ran"} }
	gate := func(channel string) (*Gate, *approval.Store, *audit.Log) {
		alog := openAudit(t, t.TempDir())
		store := approval.NewStore()
		cfg := &Config{Audit: AuditConfig{Arguments: "none"}, Approval: ApprovalConfig{Channels: []string{channel}}}
		return NewGate(&fakePolicy{cfg: cfg, call: verdict(Approve, "a person"), result: verdict(Allow, "")},
			GateOptions{Audit: alog, Approvals: store, CLI: channel == "cli"}), store, alog
	}

	t.Run("elicitation", func(t *testing.T) {
		g, _, _ := gate("elicitation")
		var asked string
		if res := g.Guard(context.Background(), call, questionAsker{asked: &asked}, run); res.Text != "ran" || runs != 1 ||
			!strings.Contains(asked, "Where the program is: "+stop+"; the call runs there only.") {
			t.Fatalf("%+v, ran %d, asked %q", res, runs, asked)
		}
		g, _, alog := gate("elicitation")
		moved := questionAsker{asked: &asked, during: func() { stop = "session default, stop 5: /app.py:3 in <module>" }}
		res := g.Guard(context.Background(), call, moved, run)
		if runs != 1 || !res.IsError || !strings.Contains(res.Text, "did not run") || !strings.Contains(res.Text, "approved it where the program was then (session default, stop 4") ||
			!strings.Contains(res.Text, "the program is now elsewhere (session default, stop 5") {
			t.Fatalf("%+v, ran %d", res, runs)
		}
		if dec, out := journey(t, alog); dec.Approval == nil || dec.Approval.State != Approved || out.Outcome != "not run" {
			t.Fatalf("recorded %+v, %+v", dec, out)
		}
	})

	t.Run("escapes", func(t *testing.T) {
		// A reason and a stop that quote what the agent wrote (a path)
		// reach the person escaped: raw, ESC's sequences move the cursor.
		runs, stop = 0, "session default, stop 4: /a\x1b[2A.py:3 in <module>"
		alog := openAudit(t, t.TempDir())
		cfg := &Config{Audit: AuditConfig{Arguments: "none"}, Approval: ApprovalConfig{Channels: []string{"elicitation"}}}
		g := NewGate(&fakePolicy{cfg: cfg, call: verdict(Approve, "reading /tmp/x\x1b[2K\r\u202e"), result: verdict(Allow, "")},
			GateOptions{Audit: alog, Approvals: approval.NewStore()})
		var asked string
		g.Guard(context.Background(), call, questionAsker{asked: &asked}, run)
		if strings.ContainsAny(asked, "\x1b\r\u202e") || !strings.Contains(asked, `reading /tmp/x\u{1b}[2K\r\u{202e}`) ||
			!strings.Contains(asked, `/a\u{1b}[2A.py:3`) {
			t.Fatalf("asked %q", asked)
		}
	})

	t.Run("cli", func(t *testing.T) {
		runs, stop = 0, "session default, stop 4: /app.py:3 in <module>"
		g, store, _ := gate("cli")
		first := g.Guard(context.Background(), call, nil, run)
		id := first.Structured.(map[string]any)["approval_id"].(string)
		if !strings.Contains(first.Text, "while the program is where it is now ("+stop+")") || store.Pending()[0].Stop != stop {
			t.Fatalf("the question does not say where: %s %+v", first.Text, store.Pending())
		}
		if _, err := store.Answer(id, true, time.Minute); err != nil {
			t.Fatal(err)
		}
		stop = "session default, stop 5: /app.py:3 in <module>"
		again := g.Guard(context.Background(), call, nil, run)
		if runs != 0 || !again.IsError || again.Structured.(map[string]any)["approval_id"] == id {
			t.Fatalf("retried at another stop: %+v, ran %d", again, runs)
		}
		stop = "session default, stop 4: /app.py:3 in <module>"
		if res := g.Guard(context.Background(), call, nil, run); res.Text != "ran" || runs != 1 {
			t.Fatalf("retried where it was approved: %+v, ran %d", res, runs)
		}
	})
}

// The host masks every value the session has seen under a secret's name,
// in every form, in the text and in every string of the structured result.
func TestGateMasksSecrets(t *testing.T) {
	alog := openAudit(t, t.TempDir())
	secrets := plugins.NewSecrets()
	secrets.Add("s", "s3cr3t'\nhunter2")
	cfg := &Config{Audit: AuditConfig{Arguments: "none"}}
	g := NewGate(&fakePolicy{cfg: cfg, call: verdict(Allow, ""), result: verdict(Allow, "")}, GateOptions{Audit: alog, Secrets: secrets})
	type inner struct{ Value string }
	res := g.Guard(context.Background(), ToolCall{Tool: "debugpy_output", MCPSession: "s", Arguments: json.RawMessage(`{}`)}, nil,
		func(context.Context) Result {
			return Result{Text: "printed s3cr3t'\nhunter2 and 2retnuh\n't3rc3s and 's3cr3t\\'\\nhunter2'",
				Structured: map[string]any{"entries": []any{inner{"x s3cr3t'\nhunter2"}}, "s3cr3t'\nhunter2": 1}}
		})
	raw, _ := json.Marshal(res.Structured)
	for _, leak := range []string{"s3cr3t", "hunter2", "2retnuh"} {
		if strings.Contains(res.Text, leak) || strings.Contains(string(raw), leak) {
			t.Fatalf("%q leaked: %q %s", leak, res.Text, raw)
		}
	}
	if strings.Count(res.Text, plugins.Mask) != 3 {
		t.Fatalf("text %q", res.Text)
	}
	// Another MCP session has seen nothing: its results are as they are.
	other := g.Guard(context.Background(), ToolCall{Tool: "debugpy_output", MCPSession: "t", Arguments: json.RawMessage(`{}`)}, nil,
		func(context.Context) Result { return Result{Text: "s3cr3t'\nhunter2"} })
	if other.Text != "s3cr3t'\nhunter2" {
		t.Fatalf("other session: %q", other.Text)
	}
}

// A secret whose repr escapes a character (a backslash, a quote) is
// masked in a structured result that carries its repr, with nothing in the
// text: the JSON of a repr is a form of its own (a backslash doubled
// twice), and a hit in the text alone masks the structured result too.
func TestGateMasksAReprInStructured(t *testing.T) {
	alog := openAudit(t, t.TempDir())
	secrets := plugins.NewSecrets()
	secrets.Add("s", `bk\sl-s3cret`)
	secrets.Add("s", `it's-s3cret`)
	g := NewGate(&fakePolicy{cfg: &Config{Audit: AuditConfig{Arguments: "none"}}, call: verdict(Allow, ""), result: verdict(Allow, "")},
		GateOptions{Audit: alog, Secrets: secrets})
	for _, c := range []Result{
		{Text: "a value", Structured: map[string]any{"result": `'bk\\sl-s3cret'`}},
		{Text: "a value", Structured: map[string]any{"result": `"it's-s3cret"`}},
		{Text: `'bk\\sl-s3cret'`, Structured: map[string]any{"result": `['bk\\sl-s3cret']`}},
	} {
		res := g.Guard(context.Background(), ToolCall{Tool: "debugpy_evaluate", MCPSession: "s", Arguments: json.RawMessage(`{}`)}, nil,
			func(context.Context) Result { return c })
		raw, _ := json.Marshal(res.Structured)
		if strings.Contains(res.Text+string(raw), "s3cret") {
			t.Errorf("leaked: %q %s", res.Text, raw)
		}
	}
}

// A container's items, listed a row each, are read together: rows that
// spell a secret of the session are masked, in the structured result and
// in the text (the result as JSON), whole and beside a listing's cut;
// other rows, and rows that spell none, are left as they are.
func TestGateMasksItemsThatSpellASecret(t *testing.T) {
	alog := openAudit(t, t.TempDir())
	secrets := plugins.NewSecrets()
	secrets.Add("s", "QvU7secret93kdW")
	g := NewGate(&fakePolicy{cfg: &Config{Audit: AuditConfig{Arguments: "none"}}, call: verdict(Allow, ""), result: verdict(Allow, "")},
		GateOptions{Audit: alog, Secrets: secrets})
	rows := func(spelled string, quoted bool) []any {
		out := []any{map[string]any{"name": "special variables", "value": ""}}
		for i, r := range spelled {
			v := strconv.Itoa(int(r))
			if quoted {
				v = "'" + string(r) + "'"
			}
			out = append(out, map[string]any{"name": fmt.Sprintf("%02d", i), "type": "str", "value": v})
		}
		return append(out, map[string]any{"name": "len()", "type": "int", "value": strconv.Itoa(len(spelled))})
	}
	list := func(r Result) Result {
		return g.Guard(context.Background(), ToolCall{Tool: "debugpy_variables", MCPSession: "s", Arguments: json.RawMessage(`{}`)}, nil,
			func(context.Context) Result { return r })
	}
	shown := func(res Result) string {
		raw, _ := json.Marshal(res.Structured)
		return res.Text + string(raw)
	}
	for name, c := range map[string]map[string]any{
		"characters": {"variables": rows("QvU7secret93kdW", true)},
		"numbers":    {"variables": rows("QvU7secret93kdW", false)},
		"cut":        {"variables": rows("QvU7se", true), "truncated": true},
		"children":   {"variables": []any{map[string]any{"name": "chars", "value": "[...]", "children": rows("QvU7secret93kdW", true)}}},
	} {
		res := list(Result{Text: "00: str = 'Q'", Structured: c})
		if !strings.Contains(res.Text, "spell a secret") || strings.Contains(shown(res), "'Q'") || strings.Contains(shown(res), `"81"`) {
			t.Errorf("%s: %s", name, shown(res))
		}
		if !strings.Contains(shown(res), `"len()"`) {
			t.Errorf("%s: other rows lost: %s", name, shown(res))
		}
	}
	for name, c := range map[string]map[string]any{
		"no secret":       {"variables": rows("Qnother-words", true)},
		"a piece, no cut": {"variables": rows("QvU7se", true)},
	} {
		if res := list(Result{Text: "as the tool wrote it", Structured: c}); res.Text != "as the tool wrote it" || !strings.Contains(shown(res), "'Q'") {
			t.Errorf("%s: %s", name, shown(res))
		}
	}
}

// hasItemRows finds an item's row however a module spaced its JSON, and
// no other row.
func TestHasItemRows(t *testing.T) {
	for raw, want := range map[string]bool{
		`{"variables":[{"name":"00","value":"'Q'"}]}`:             true,
		`{"variables":[{"name" : "7","value":"'Q'"}]}`:            true,
		"{\"variables\":[{\"name\":\n\t\"12\",\"value\":\"1\"}]}": true,
		`{"variables":[{"name":"x0","value":"'0'"}]}`:             false,
		`{"variables":[{"name":"len()","value":"0"}],"name":"a"}`: false,
		`{"result":"'name': '0'"}`:                                false,
		`{"name"`:                                                 false,
	} {
		if got := hasItemRows([]byte(raw)); got != want {
			t.Errorf("%s: %v, want %v", raw, got, want)
		}
	}
}

// TestOneEnginePerCall: a reload while a call runs does not change the
// engine that call is judged by: its result is decided by the config its
// call was, and the old engine closes only once the call is done.
func TestOneEnginePerCall(t *testing.T) {
	const sandbox = "[sandbox]\ntimeout = \"5s\"\n[audit]\narguments = \"hash\"\n"
	old := engineFor(t, "default = \"allow\"\n"+sandbox)
	strict := engineFor(t, "default = \"deny\"\n"+sandbox+`
[modules.no]
source = "PROBE"
settings = { verdict = "deny", reason = "not after the reload" }
[[rules]]
tools = ["debugpy_stack_trace"]
call = ["no"]
result = ["no"]
`)
	alog := openAudit(t, t.TempDir())
	live := NewLive(old)
	g := NewGate(live, GateOptions{Audit: alog})
	call := ToolCall{Tool: "debugpy_stack_trace", Category: "read", Arguments: json.RawMessage(`{}`), MCPSession: "s"}
	closed := make(chan struct{})
	res := g.Guard(context.Background(), call, nil, func(ctx context.Context) Result {
		if err := live.Replace(ctx, func(context.Context) (*Engine, error) { return strict, nil }); err != nil {
			t.Fatal(err)
		}
		go func() { old.Close(context.Background()); close(closed) }()
		select {
		case <-closed:
			t.Error("the old engine closed while a call held it")
		default:
		}
		return Result{Text: "20 frames"}
	})
	if res.IsError || res.Text != "20 frames" {
		t.Fatalf("the call's result was judged by the new config: %+v", res)
	}
	<-closed // the call is done: the old engine closes
	res = g.Guard(context.Background(), call, nil, func(context.Context) Result { t.Error("ran"); return Result{} })
	if !res.IsError || !strings.Contains(res.Text, "not after the reload") {
		t.Fatalf("the next call is not decided by the new config: %+v", res)
	}
}

// learning is a policy whose result phase learns a secret from what the
// server read on its own (as redact does through guard.secret), and denies
// it: a verdict on a Seen result decides nothing.
type learning struct {
	fakePolicy
	secrets *plugins.Secrets
	seen    []Call
	calls   []Call // the calls' own phases
}

func (p *learning) Acquire() (Decider, func()) { return p, func() {} }
func (p *learning) Decide(ctx context.Context, c Call) Decision {
	if c.Phase == PhaseResult && c.Tool == "debugpy_variables" {
		p.seen = append(p.seen, c)
		p.secrets.Add(c.MCPSession, "local-s3cret-value")
		return verdict(Deny, "not this")
	}
	p.calls = append(p.calls, c)
	return p.fakePolicy.Decide(ctx, c)
}

// A stop's listing handed to every call of the stop (Seen.Learned) is
// learned once for an MCP session: the second call does not read it again.
func TestGateLearnsOnce(t *testing.T) {
	alog := openAudit(t, t.TempDir())
	secrets := plugins.NewSecrets()
	p := &learning{fakePolicy: fakePolicy{cfg: &Config{}, call: verdict(Allow, ""), result: verdict(Allow, "")}, secrets: secrets}
	g := NewGate(p, GateOptions{Audit: alog, Secrets: secrets})
	listing := Seen{Tool: "debugpy_variables", Category: "read", Arguments: json.RawMessage(`{}`), Learned: &Learned{},
		Structured: map[string]any{"variables": []any{map[string]any{"name": "password", "value": "'local-s3cret-value'"}}},
		Values:     map[string]string{"password": "'local-s3cret-value'", "alias": "'local-s3cret-value'"}}
	for range 2 {
		res := g.Guard(context.Background(), ToolCall{Tool: "debugpy_evaluate", Category: "read", MCPSession: "s", Arguments: json.RawMessage(`{"expression":"alias"}`)}, nil,
			func(context.Context) Result {
				return Result{Text: "str: 'local-s3cret-value'", Seen: []Seen{listing}}
			})
		if strings.Contains(res.Text, "s3cret") {
			t.Fatalf("shown: %s", res.Text)
		}
	}
	if len(p.seen) != 1 {
		t.Fatalf("the listing was learned %d times, not once", len(p.seen))
	}
}

// unreadable is a policy whose result phase cannot read a listing (its
// module ran out of time, say).
type unreadable struct{ fakePolicy }

func (p *unreadable) Acquire() (Decider, func()) { return p, func() {} }
func (p *unreadable) Decide(ctx context.Context, c Call) Decision {
	if c.Phase == PhaseResult && c.Tool == "debugpy_variables" {
		return Decision{Verdict: Deny, Trace: []Step{{Module: "redact", Verdict: Deny, Mode: "enforce", Error: "deadline exceeded"}}}
	}
	return p.fakePolicy.Decide(ctx, c)
}

// A listing read for its secrets that no module could read (a large one,
// past the module's deadline): what it holds is not known, so the call's
// own result, which may hold it, is withheld (fail closed).
func TestGateWithholdsWhatItCouldNotLearn(t *testing.T) {
	alog := openAudit(t, t.TempDir())
	p := &unreadable{fakePolicy{cfg: &Config{}, call: verdict(Allow, ""), result: verdict(Allow, "")}}
	g := NewGate(p, GateOptions{Audit: alog, Secrets: plugins.NewSecrets()})
	res := g.Guard(context.Background(), ToolCall{Tool: "debugpy_evaluate", Category: "read", MCPSession: "s", Arguments: json.RawMessage(`{"expression":"alias"}`)}, nil,
		func(context.Context) Result {
			return Result{Text: "str: 'local-s3cret-value'", Structured: map[string]any{"result": "'local-s3cret-value'"},
				Seen: []Seen{{Tool: "debugpy_variables", Category: "read", Arguments: json.RawMessage(`{}`),
					Structured: map[string]any{"variables": []any{map[string]any{"name": "password", "value": "'local-s3cret-value'"}}}}}}
		})
	raw, _ := json.Marshal(res.Structured)
	if !res.IsError || strings.Contains(res.Text+string(raw), "s3cret") || !strings.Contains(res.Text, "redact could not read") {
		t.Fatalf("the call's result: %+v", res)
	}
}

func TestGateLearnsFromSeenResults(t *testing.T) {
	alog := openAudit(t, t.TempDir())
	secrets := plugins.NewSecrets()
	p := &learning{fakePolicy: fakePolicy{cfg: &Config{}, call: verdict(Allow, ""), result: verdict(Allow, "")}, secrets: secrets}
	g := NewGate(p, GateOptions{Audit: alog, Secrets: secrets})
	derived := &Derived{Code: []Code{{Argument: "expression", Kind: "expression", Text: "alias"}}}
	res := g.Guard(context.Background(), ToolCall{Tool: "debugpy_evaluate", Category: "execute", MCPSession: "s", Arguments: json.RawMessage(`{"expression":"alias"}`),
		Derived: derived}, nil,
		func(context.Context) Result {
			return Result{Text: "str: 'local-s3cret-value'", Structured: map[string]any{"result": "'local-s3cret-value'"},
				Seen: []Seen{{Tool: "debugpy_variables", Category: "read", Arguments: json.RawMessage(`{"scope":"locals"}`),
					Structured: map[string]any{"variables": []any{map[string]any{"name": "password", "value": "'local-s3cret-value'"}}},
					Values: map[string]string{"password": "'local-s3cret-value'", "n": "1", "alias": "'local-s3cret-value'", "rev": "'eulav-terc3s-lacol'",
						"big": "[0, 1, 2, ...]", "tail": "['yyyyyyyyyyyyyyyyyyyy...-s3cret-value']"}}}}
		})
	raw, _ := json.Marshal(res.Structured)
	if res.IsError || strings.Contains(res.Text, "s3cret") || strings.Contains(string(raw), "s3cret") || !strings.Contains(res.Text, plugins.Mask) {
		t.Fatalf("the call's result: %+v %s", res, raw)
	}
	if len(p.seen) != 1 || p.seen[0].Category != "read" || string(p.seen[0].Arguments) != `{"scope":"locals"}` ||
		!strings.Contains(string(p.seen[0].Result), `"name":"password"`) || p.seen[0].Derived != nil {
		t.Fatalf("the result phase saw %+v", p.seen)
	}
	// The call's own result phase is told the names that hold the secret
	// just learned (derived.holders), whole or beside a cut, and the others
	// shown cut short (derived.cut); its call phase was not, and the call's
	// derived facts are not changed under it.
	if len(p.calls) != 2 || p.calls[0].Derived != derived || p.calls[1].Phase != PhaseResult ||
		!slices.Equal(p.calls[1].Derived.Holders, []string{"alias", "password", "rev", "tail"}) || derived.Holders != nil ||
		!slices.Equal(p.calls[1].Derived.Cut, []string{"big"}) || derived.Cut != nil {
		t.Fatalf("the call's phases saw %+v", p.calls)
	}
}

// The names shown cut short as text (a string or bytes whose middle
// debugpy did not show, a list of strings past its first items:
// derived.texts) are told to the call phase in any session, one that has
// seen no secret too: a slice of one reads what no one read. Not a list of
// numbers, an object, a number, nor a string shown whole.
func TestGateTellsTheCallPhaseItsTexts(t *testing.T) {
	listing := Seen{Tool: "debugpy_variables", Category: "read", Arguments: json.RawMessage(`{}`), Learned: &Learned{},
		Structured: map[string]any{"variables": []any{map[string]any{"name": "n", "value": "1"}}},
		Values: map[string]string{"dump": "'xxxxxxxxxx...yyyyyyyyyy'", "raw": "b'\\x00\\x01...\\xff'", "quoted": "\"it's...here\"",
			"lines": "['a', 'b', ...]", "big": "[0, 1, ...]", "short": "'short'", "n": "1", "obj": "<app.Obj object at 0x7f>"}}
	derived := &Derived{Code: []Code{{Argument: "expression", Kind: "expression", Text: "dump[5:]"}}}
	call := ToolCall{Tool: "debugpy_evaluate", Category: "execute", MCPSession: "s", Arguments: json.RawMessage(`{"expression":"dump[5:]"}`), Derived: derived,
		Listing: func(context.Context) ([]Seen, error) { return []Seen{listing}, nil }}
	for _, secrets := range []*plugins.Secrets{plugins.NewSecrets(), nil} { // nil: a gate that masks nothing
		p := &recording{fakePolicy: fakePolicy{cfg: &Config{}, call: verdict(Allow, ""), result: verdict(Allow, "")}}
		g := NewGate(p, GateOptions{Audit: openAudit(t, t.TempDir()), Secrets: secrets})
		g.Guard(context.Background(), call, nil, func(context.Context) Result { return Result{Text: "ok"} })
		if len(p.calls) == 0 || p.calls[0].Phase != PhaseCall || !slices.Equal(p.calls[0].Derived.Texts, []string{"dump", "lines", "quoted", "raw"}) ||
			len(p.calls[0].Derived.Holders) > 0 || len(p.calls[0].Derived.Cut) > 0 || derived.Texts != nil {
			t.Fatalf("secrets %v: the call phase saw %+v", secrets != nil, p.calls)
		}
	}
}

// recording is a policy that records the calls it decides but the
// listings' (which it learns nothing from).
type recording struct {
	fakePolicy
	calls []Call
}

func (p *recording) Acquire() (Decider, func()) { return p, func() {} }
func (p *recording) Decide(ctx context.Context, c Call) Decision {
	if c.Tool != "debugpy_variables" {
		p.calls = append(p.calls, c)
	}
	return p.fakePolicy.Decide(ctx, c)
}

// openAudit opens an audit log in dir, closed when the test ends.
func openAudit(t testing.TB, dir string) *audit.Log {
	t.Helper()
	alog, err := audit.Open(filepath.Join(dir, "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { alog.Close() })
	return alog
}

// A call with code that has a Listing is told, in its call phase, which
// names hold a secret (derived.holders), which of those are objects or
// containers (derived.objects: not a bytearray, whose items are its bytes,
// nor a list of the secret's characters) and lists or tuples
// (derived.sequences)
// and which were shown cut short (derived.cut), from that listing, learned first; a call without code is
// decided without it. When the listing cannot be read, or no module can
// read it, the call is denied and nothing runs (fail closed).
func TestGateTellsTheCallPhaseItsHolders(t *testing.T) {
	listing := Seen{Tool: "debugpy_variables", Category: "read", Arguments: json.RawMessage(`{}`), Learned: &Learned{},
		Structured: map[string]any{"variables": []any{map[string]any{"name": "password", "value": "'local-s3cret-value'"}}},
		Values: map[string]string{"password": "'local-s3cret-value'", "alias": "'local-s3cret-value'", "big": "[0, 1, ...]", "n": "1",
			"user": "User(name='ada', password='local-s3cret-value')", "pair": "('ada', 'local-s3cret-value')",
			"raw": "bytearray(b'local-s3cret-value')", "chars": "['l', 'o', 'c', 'a', 'l', '-', 's', '3', 'c', 'r', 'e', 't', '-', 'v', ...]"}}
	derived := &Derived{Code: []Code{{Argument: "expression", Kind: "statement", Text: "x = alias[1:]"}}}
	call := ToolCall{Tool: "debugpy_evaluate", Category: "execute", MCPSession: "s", Arguments: json.RawMessage(`{"expression":"x = alias[1:]"}`), Derived: derived}
	ran := func(n *int) func(context.Context) Result {
		return func(context.Context) Result { *n++; return Result{Text: "ok"} }
	}

	t.Run("told", func(t *testing.T) {
		secrets := plugins.NewSecrets()
		p := &learning{fakePolicy: fakePolicy{cfg: &Config{}, call: verdict(Allow, ""), result: verdict(Allow, "")}, secrets: secrets}
		g := NewGate(p, GateOptions{Audit: openAudit(t, t.TempDir()), Secrets: secrets})
		listed, runs := 0, 0
		c := call
		c.Listing = func(context.Context) ([]Seen, error) { listed++; return []Seen{listing}, nil }
		g.Guard(context.Background(), c, nil, ran(&runs))
		if listed != 1 || len(p.seen) != 1 || runs != 1 {
			t.Fatalf("listed %d, learned %d, ran %d: want 1 each", listed, len(p.seen), runs)
		}
		if len(p.calls) == 0 || p.calls[0].Phase != PhaseCall || !slices.Equal(p.calls[0].Derived.Holders, []string{"alias", "chars", "pair", "password", "raw", "user"}) ||
			!slices.Equal(p.calls[0].Derived.Cut, []string{"big"}) || !slices.Equal(p.calls[0].Derived.Objects, []string{"pair", "user"}) || !slices.Equal(p.calls[0].Derived.Sequences, []string{"pair"}) ||
			derived.Holders != nil {
			t.Fatalf("the call phase saw %+v", p.calls)
		}
		// Without code, no listing is read before the decision.
		c.Derived, c.Arguments = nil, json.RawMessage(`{}`)
		g.Guard(context.Background(), c, nil, ran(&runs))
		if listed != 1 {
			t.Fatalf("a call without code read the listing first")
		}
	})
	for name, listing := range map[string]func(context.Context) ([]Seen, error){
		"unread":    func(context.Context) ([]Seen, error) { return nil, errors.New("variables: no response from debugpy") },
		"unlearned": func(context.Context) ([]Seen, error) { return []Seen{listing}, nil },
	} {
		t.Run(name, func(t *testing.T) {
			alog := openAudit(t, t.TempDir())
			p := &unreadable{fakePolicy{cfg: &Config{}, call: verdict(Allow, ""), result: verdict(Allow, "")}}
			g := NewGate(p, GateOptions{Audit: alog, Secrets: plugins.NewSecrets()})
			runs := 0
			c := call
			c.Listing = listing
			res := g.Guard(context.Background(), c, nil, ran(&runs))
			if runs != 0 || !res.IsError || !strings.Contains(res.Text, "did not run") || !strings.Contains(res.Text, "could not be read") {
				t.Fatalf("ran %d: %+v", runs, res)
			}
			if dec, out := journey(t, alog); dec.Decision != string(Deny) || !strings.Contains(strings.Join(dec.Reasons, ""), "could not be read") || out.Outcome != "not run" {
				t.Fatalf("recorded %+v, %+v", dec, out)
			}
		})
	}
}

// shownAsObject tells an object's or a container's repr from a string's,
// a number's and a sequence of characters'; shownAsSequence a list's or
// a tuple's among them.
func TestShownAsObject(t *testing.T) {
	for v, want := range map[string]bool{
		"{'a': 1}": true, "[1, 2]": true, "(1,)": true, "{1}": true, "<app.User object at 0x7f>": true,
		"User(name='ada')": true, "Namespace(token='x')": true, "OrderedDict([('a', 1)])": true, "deque([1])": true,
		"collections.OrderedDict()": true, "Counter({'x': 2})": true,
		"'secret'": false, `"secret"`: false, "b'secret'": false, "bytearray(b'secret')": false, "memoryview(b'x')": false,
		"array('u', 'secret')": false, "123456": false, "-1.5": false, "True": false, "None": false, "": false,
		"str('x')": false, "b\"x\"": false, "rb'x'": false, "2(": false,
		"<re.Match object; span=(0, 6), match='s3cret'>": false,
	} {
		if got := shownAsObject(v); got != want {
			t.Errorf("shownAsObject(%q) = %v, want %v", v, got, want)
		}
	}
	for v, want := range map[string]bool{
		"[1, 2]": true, "('a', 'b')": true, "[0, 1, ...]": true, "()": true,
		"{'a': 1}": false, "User(name='ada')": false, "'[x]'": false, "[": false, "(1, 2": false,
	} {
		if got := shownAsSequence(v); got != want || want && !shownAsObject(v) {
			t.Errorf("shownAsSequence(%q) = %v, want %v (and an object)", v, got, want)
		}
	}
}

// rewriteText changes a bare value (None, True, 5) only where it stands
// as a word, and only when the text shows it no more times than it was
// changed; otherwise the result is shown as JSON (false). A row named for
// a secret whose value was None made every None of a listing, and
// NoneType, [redacted] (found 2026-12-08).
func TestRewriteTextBareValues(t *testing.T) {
	m := "[redacted]"
	for _, c := range []struct {
		text    string
		changed [][2]string
		want    string
		ok      bool
	}{
		{"refresh_token: NoneType = None\naccess_token: str = 'k3y-x9'", [][2]string{{"None", m}, {"'k3y-x9'", m}},
			"refresh_token: NoneType = [redacted]\naccess_token: str = [redacted]", true},
		{"refresh_token: NoneType = None\nother: NoneType = None", [][2]string{{"None", m}}, "", false},
		{"pin_password: int = 5\nretries: int = 5", [][2]string{{"5", m}}, "", false},
		{"pin_password: int = 5 [ref 15]", [][2]string{{"5", m}}, "pin_password: int = [redacted] [ref 15]", true},
		{"a: NoneType = None\nb: NoneType = None", [][2]string{{"None", m}, {"None", m}}, "a: NoneType = [redacted]\nb: NoneType = [redacted]", true},
		{"v = 's3cret' and 's3cret'", [][2]string{{"'s3cret'", m}}, "v = [redacted] and [redacted]", true}, // a quoted value: everywhere
		{"password: str = ''\nuser: str = ''", [][2]string{{"''", m}}, "", false},
	} {
		got, ok := rewriteText(c.text, c.changed, nil)
		if got != c.want || ok != c.ok {
			t.Errorf("rewriteText(%q, %q) = %q, %v; want %q, %v", c.text, c.changed, got, ok, c.want, c.ok)
		}
	}
}

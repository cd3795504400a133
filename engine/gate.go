package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/debugpy-guard/debugpy-guard/engine/approval"
	"github.com/debugpy-guard/debugpy-guard/engine/audit"
	"github.com/debugpy-guard/debugpy-guard/plugins"
	"github.com/debugpy-guard/debugpy-guard/plugins/abi"
)

// The gate is the journey of one tool call, in one MCP-free place:
//
//	malformed or hidden? -> decide (phase call) -> approve? -> record the
//	decision (fsynced) -> run -> decide (phase result) -> record the outcome
//
// tools adapts MCP to it: it reads the arguments (strictly, canonically,
// with the derived facts) into a ToolCall, asks a person through an Asker
// when the client can be asked, and turns a Result into an MCP result.

// ToolCall is one call at the gate.
type ToolCall struct {
	Tool     string
	Category string // execute when the call carries code
	// Arguments are the canonical arguments (the only argument bytes
	// anyone sees), or the bytes as sent when Malformed.
	Arguments    json.RawMessage
	Malformed    error    // why the arguments were refused before any module saw them
	Derived      *Derived // code, paths and addresses, as they will be used
	MCPSession   string   // the MCP session
	Client       ClientInfo
	DebugSession *DebugSession
	// Listing, when set, reads what a call with code reads first: the
	// listing of the stopped frame it reads, the gate's own read (never the
	// call's code). The gate reads it before the call is decided, so that
	// the call phase knows which names hold a secret (derived.holders,
	// derived.cut): code that copies a part of one to another name, or
	// passes it on, is judged before it runs, not only its result after.
	Listing func(context.Context) ([]Seen, error)
	// Stopped, when set, says where the program the call acts on is now,
	// as a person reads it: its debug session, by name and number, and
	// the stop, numbered so that two stops at one line differ, or that it
	// is not stopped. An approval binds to it: a person approves a call
	// where the program is, and the call runs there, not at a later stop
	// the agent ran the program to, nor in another session.
	Stopped func() string
}

// Result is what a call returns, MCP-free.
type Result struct {
	IsError    bool
	Text       string
	Structured any // the structured result, when the tool has one
	// Raw, when set, is the adapter's own result, returned as it is (the
	// MCP input request an Asker makes).
	Raw any
	// ReadMore says how to read the rest of a result the gate cut
	// (GateOptions.MaxResult): an offset, a narrower request.
	ReadMore string
	// Seen are results the server read on its own for the call and never
	// shows (the variables of the frame the call reads): the result phase
	// reads each before the call's own result, so that the secrets they
	// hold under their names are learned and masked in what is shown.
	Seen []Seen
	// Before is what the run read for the result phase of debugpy_output:
	// per category, the output the read's entries continue (derived.before).
	// The agent is not shown it.
	Before []Before

	encoded []byte // Structured as JSON, when the gate has encoded it
}

// Seen is a result read for a call, as a result of Tool (of Category) with
// Arguments.
type Seen struct {
	Tool       string
	Category   string
	Arguments  json.RawMessage
	Structured any
	// Values, for a listing of variables, are the text shown for each
	// name's value. The result phase of a call with code is told which of
	// them hold a secret once the listing is learned (derived.holders),
	// and which were shown cut short (derived.cut).
	Values map[string]string
	// Learned, when the same result is handed to many calls (a stop's
	// listing), has it learned once for each MCP session and policy: a later call
	// waits for the first, and does not learn it again once it was.
	Learned *Learned
}

// Learned records who learned a result (Seen): an MCP session, under a
// policy config (a reloaded one learns it again).
type Learned struct {
	mu  sync.Mutex
	who map[learner]bool
}

type learner struct {
	session string
	policy  Decider // the engine Acquire gave: a pointer, so comparable
}

// Errorf is an isError result.
func Errorf(format string, a ...any) Result {
	return Result{IsError: true, Text: fmt.Sprintf(format, a...)}
}

// Question is what a person is asked about a held call.
type Question struct {
	Tool    string
	Message string // every argument in full, and why a person is asked
	Timeout time.Duration
	// Hold holds the call and returns its approval id, for a client that
	// answers by retrying the call; Take uses the answer's id up.
	Hold func() (string, error)
	Take func(id string) error
}

// Answers to a Question.
const (
	Approved  = "approved"
	Declined  = "declined"
	Cancelled = "cancelled"
	TimedOut  = "timed out"
	Failed    = "failed" // the answer came back unusable; Answer.Why says why
)

// Answer is a person's answer.
type Answer struct {
	State string
	Why   string
	ID    string // the approval id, when the question was held
}

// Asker puts a Question to a person through the MCP client (elicitation).
// It returns the answer; or a Result to return at once when the client
// answers by retrying the call (the call is held, under the id Hold gave);
// or an error when asking failed, so that another channel may be tried.
type Asker interface {
	Ask(ctx context.Context, q Question) (Answer, *Result, error)
}

// Policy is what the gate needs of the engine: the engine in force, held
// for one call from start to end (Live.Acquire: a reload may swap it).
type Policy interface {
	Acquire() (Decider, func())
}

// Decider is what a call's journey asks of the engine it holds (Engine).
type Decider interface {
	Decide(ctx context.Context, call Call) Decision
	Config() *Config
	Chain(tool, phase string) (mods []string, def Verdict)
}

// Gate runs every call's journey. It is safe for concurrent use.
type Gate struct {
	policy    Policy
	audit     *audit.Log
	approvals *approval.Store
	secrets   *plugins.Secrets
	log       *slog.Logger
	cli       bool // the approval socket is up: the cli channel can be offered
	maxResult int
	calls     atomic.Uint64
	prefix    string
}

// GateOptions wire a Gate.
type GateOptions struct {
	Audit     *audit.Log      // required: a call that cannot be recorded is denied
	Approvals *approval.Store // the calls held for a person
	// Secrets are masked in every result (plugins.Runtime.Secrets); nil:
	// no values are masked by the host.
	Secrets *plugins.Secrets
	// CLI says the approval socket is serving Approvals, so a call can be
	// approved with `debugpy-guard approve ID`.
	CLI bool
	// MaxResult bounds each of a result's text and structured JSON, in
	// bytes; DefaultMaxResult when 0.
	MaxResult int
	Log       *slog.Logger
}

// NewGate makes the gate. It panics without an audit log: no call runs
// unrecorded.
func NewGate(p Policy, o GateOptions) *Gate {
	if o.Audit == nil {
		panic("engine.NewGate: an audit log is required")
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.Approvals == nil {
		o.Approvals = approval.NewStore()
	}
	if o.MaxResult <= 0 {
		o.MaxResult = DefaultMaxResult
	}
	return &Gate{policy: p, audit: o.Audit, approvals: o.Approvals, secrets: o.Secrets, log: o.Log, cli: o.CLI,
		maxResult: o.MaxResult, prefix: strconv.Itoa(os.Getpid()) + "-"}
}

// maxAuditedArguments bounds the arguments an audit record keeps in full
// ([audit] arguments = "full"); larger ones are kept as their hash.
const maxAuditedArguments = 64 << 10

// What the audit log records of a deny that is a hidden tool or a rate
// limit: the gate's own words for the record, never verdicts.
const (
	hidden      = "hidden"
	rateLimited = "rate-limited"
)

// Guard runs call: decides it, holds it for a person when the decision is
// approve, records it, runs it with run when it may go on, decides on its
// result, and records the outcome. asker is nil when the client cannot be
// asked.
func (g *Gate) Guard(ctx context.Context, call ToolCall, asker Asker, run func(context.Context) Result) Result {
	t0 := time.Now()
	eng, release := g.policy.Acquire()
	defer release()
	return g.guard(ctx, eng, call, asker, run, t0)
}

// guard is Guard on the one engine p of the call.
func (g *Gate) guard(ctx context.Context, p Decider, call ToolCall, asker Asker, run func(context.Context) Result, t0 time.Time) Result {
	cfg := p.Config()
	ec := Call{Phase: PhaseCall, Tool: call.Tool, Category: call.Category, Arguments: call.Arguments, Derived: call.Derived,
		MCPSession: call.MCPSession, Client: call.Client, DebugSession: call.DebugSession, Time: time.Now()}
	rec := audit.Entry{Kind: "decision", Call: g.prefix + strconv.FormatUint(g.calls.Add(1), 10),
		Session: call.MCPSession, Client: call.Client.Name, Tool: call.Tool, Category: call.Category}
	switch mode := cfg.Audit.Arguments; {
	case mode == "full" && len(call.Arguments) <= maxAuditedArguments:
		rec.Arguments = call.Arguments
	case mode == "full" || mode == "hash": // too large to keep in full: its hash
		sum := sha256.Sum256(call.Arguments)
		rec.ArgumentsSHA256 = hex.EncodeToString(sum[:])
	}

	var d Decision
	var unread error // the frame's listing, read for the call phase, could not be read or learned
	hiddenTool := cfg.Hides(call.Tool)
	switch {
	case call.Malformed != nil:
		d = Decision{Verdict: Deny, Reasons: []string{"malformed arguments: " + call.Malformed.Error()}}
	case hiddenTool:
		d = Decision{Verdict: Deny, Reasons: []string{"the policy config hides " + call.Tool}}
	default:
		d, unread = g.decideCall(ctx, p, call, &ec)
	}
	rec.Decision, rec.Reasons, rec.Modules, rec.Monitor = string(d.Verdict), d.Reasons, d.Modules, monitored(d)
	if hiddenTool && call.Malformed == nil {
		rec.Decision = hidden
	}
	g.log.Info("decision", "call", rec.Call, "tool", call.Tool, "decision", d.Verdict, "reasons", strings.Join(d.Reasons, "; "))

	var stop *Result // the result when the call does not run
	switch {
	case call.Malformed != nil:
		stop = denied(call.Tool, "denied", d, "No tool takes arguments like these: send the arguments its inputSchema describes.")
	case hiddenTool:
		stop = denied(call.Tool, "is hidden by the policy config", d, "A user can show it by removing it from `hide` in the policy config (--config).")
	case unread != nil:
		stop = denied(call.Tool, "did not run", d, g.unlearnedNext(call.MCPSession, "Check its frame_id (debugpy_stack_trace lists the frames), then try again."))
	case d.Verdict == Allow:
	case d.Verdict == Approve:
		stop, rec.Approval = g.approve(ctx, call, asker, d, cfg)
	default: // deny, and anything unexpected: fail closed
		if isRateLimited(d) {
			rec.Decision = rateLimited
		}
		stop = denied(call.Tool, "denied by policy", d, "A user can change this in the policy config (--config); `debugpy-guard check` shows which modules apply to which tool.")
	}
	if stop != nil {
		// Nothing runs: the answer goes first, and the records follow
		// within audit.SyncWithin (RATIONALE.md, "Audit").
		outcome := "not run"
		if rec.Approval != nil && rec.Approval.State == approval.Pending {
			outcome = "held for approval"
		}
		if err := g.audit.AppendLater(rec); err != nil {
			g.log.Error("audit log: a call that did not run is not recorded", "call", rec.Call, "err", err)
		}
		g.audit.AppendLater(g.outcomeEntry(rec, outcome, *stop, t0))
		return *stop
	}
	if err := g.audit.Append(rec, true); err != nil {
		g.log.Error("audit log: the call is denied", "call", rec.Call, "err", err)
		res := Errorf("%s denied: the audit log cannot record it (%v), and no call runs unrecorded. A user must fix the audit log ([audit] path).", call.Tool, err)
		g.outcome(rec, "not run", res, t0)
		return res
	}
	res := run(ctx)
	var unlearned error // a result read for its secrets that no module could read: what it holds is not known
	for _, seen := range res.Seen {
		if err := g.learnOnce(ctx, p, ec, seen); err != nil && unlearned == nil {
			unlearned = err
		}
	}
	if ec.Derived != nil && len(ec.Derived.Code) > 0 {
		g.tellHolders(&ec, call.MCPSession, res.Seen)
	}
	if len(res.Before) > 0 {
		var d Derived
		if ec.Derived != nil {
			d = *ec.Derived
		}
		d.Before = res.Before
		ec.Derived = &d
	}
	res.Seen, res.Before = nil, nil
	if unlearned != nil { // fail closed: the secrets it would have taught are not masked
		res = *denied(call.Tool, "result withheld", Decision{Reasons: []string{unlearned.Error()}},
			g.unlearnedNext(call.MCPSession, "The call ran; its result is not shown, because the program's values read for the secrets they hold could not be judged. Try again; a user can raise [sandbox] timeout in the policy config (--config)."))
		g.outcome(rec, "withheld", res, t0)
		return res
	}
	res, outcome, monitor := g.checkResult(ctx, p, ec, res)
	if masked, n := g.mask(call.MCPSession, res); n > 0 {
		res = masked
		if outcome == "ok" || outcome == "error" {
			outcome = "masked"
		}
	}
	if res.Raw == nil {
		res, _ = bound(res, g.maxResult)
	}
	g.outcome(rec, outcome, res, t0, monitor...)
	return res
}

// decideCall decides the call phase of call. A call with code that has a
// Listing is told first which names of the frame it reads hold a secret
// (derived.holders) or were shown cut short (derived.cut). When the
// listing cannot be read or learned, what those names hold is not known:
// the call is denied (fail closed), and the error says why.
func (g *Gate) decideCall(ctx context.Context, p Decider, call ToolCall, ec *Call) (Decision, error) {
	if call.Listing == nil || ec.Derived == nil || len(ec.Derived.Code) == 0 {
		return p.Decide(ctx, *ec), nil
	}
	seen, err := call.Listing(ctx)
	for i := 0; err == nil && i < len(seen); i++ {
		err = g.learnOnce(ctx, p, *ec, seen[i])
	}
	if err != nil {
		return Decision{Verdict: Deny, Reasons: []string{"the variables of the frame it reads, read first for the secrets they hold, could not be read (" + err.Error() + ")"}}, err
	}
	g.tellHolders(ec, call.MCPSession, seen)
	return p.Decide(ctx, *ec), nil
}

// tellHolders sets, in a copy of ec's derived (which it has), what holders
// finds in the listings seen, when it finds any: the call phase's, and the
// result phase's once the call ran.
func (g *Gate) tellHolders(ec *Call, session string, seen []Seen) {
	if h := g.holders(session, seen); len(h.Holders) > 0 || len(h.Cut) > 0 || len(h.Texts) > 0 {
		d := *ec.Derived
		d.Holders, d.Cut, d.Objects, d.Sequences, d.Texts = h.Holders, h.Cut, h.Objects, h.Sequences, h.Texts
		ec.Derived = &d
	}
}

// Learns reports whether the result phase of tool has modules: whether a
// result of tool read for a call (Seen) would teach them anything.
func (g *Gate) Learns(tool string) bool {
	p, release := g.policy.Acquire()
	defer release()
	mods, _ := p.Chain(tool, PhaseResult)
	return len(mods) > 0
}

// learnOnce learns seen, once for the call's MCP session and policy when
// seen says so (Learned): a failure is tried again by the next call.
func (g *Gate) learnOnce(ctx context.Context, p Decider, ec Call, seen Seen) error {
	l := seen.Learned
	if l == nil {
		return g.learn(ctx, p, ec, seen)
	}
	who := learner{ec.MCPSession, p}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.who[who] {
		return nil
	}
	if err := g.learn(ctx, p, ec, seen); err != nil {
		return err
	}
	if l.who == nil {
		l.who = map[learner]bool{}
	}
	l.who[who] = true
	return nil
}

// unlearnedNext is what to do after a read for secrets failed: next, but
// when the session holds as many secrets as it masks, where trying again
// does not help (said in plugins' words: the module's abort carries its
// error as text, so the session is asked instead).
func (g *Gate) unlearnedNext(session, next string) string {
	if g.secrets != nil && g.secrets.Full(session) {
		return "Trying again does not help: " + plugins.ErrFull.Error() + "."
	}
	return next
}

// learn runs the result phase on a result the agent will not see, for
// what the modules learn of it (the secrets they hand to the host); their
// verdict decides nothing. It fails when a module could not read it (a
// trap, its deadline: a large listing), so that the call's own result,
// whose secrets it may hold, is not shown unmasked.
func (g *Gate) learn(ctx context.Context, p Decider, ec Call, seen Seen) error {
	raw, err := json.Marshal(seen.Structured)
	if err != nil {
		g.log.Warn("a result read for the secrets it holds cannot be encoded", "tool", seen.Tool, "err", err)
		return fmt.Errorf("a %s result read for its secrets cannot be encoded: %v", seen.Tool, err)
	}
	ec.Phase, ec.Tool, ec.Category, ec.Arguments, ec.Result, ec.Derived = PhaseResult, seen.Tool, seen.Category, seen.Arguments, raw, nil
	d := p.Decide(ctx, ec)
	g.log.Debug("read for its secrets", "tool", seen.Tool, "decision", d.Verdict)
	for _, st := range d.Trace {
		if st.Error != "" && st.Mode != "monitor" {
			g.log.Warn("a result read for the secrets it holds could not be read", "tool", seen.Tool, "module", st.Module, "err", st.Error)
			return fmt.Errorf("module %s could not read a %s result for its secrets: %s", st.Module, seen.Tool, st.Error)
		}
	}
	return nil
}

// holders returns, of the names in the listings seen (plugins/ABI.md,
// derived): those whose values hold a secret of the MCP session
// (Holders), the others whose values were shown cut short in a session
// that has seen a secret (Cut), of the holders those shown as an object
// or a container (Objects) and of those as a list or a tuple (Sequences),
// and, in any session, those shown cut short as text (Texts); each sorted.
// Only these fields are set.
func (g *Gate) holders(session string, seen []Seen) (d Derived) {
	var m *plugins.Masker // nil: no secret seen, or none masked
	if g.secrets != nil && len(seen) > 0 {
		m = g.secrets.Masker(session)
	}
	for _, s := range seen {
		for name, v := range s.Values {
			cut := plugins.CutShort(v)
			if cut && shownAsText(v) {
				d.Texts = append(d.Texts, name)
			}
			switch {
			case m == nil:
			case m.InString(v):
				d.Holders = append(d.Holders, name)
				if m.InSequence(v) {
					// Its elements are the secret's characters or bytes:
					// any of them is a piece of it, not an element whole.
					continue
				}
				if shownAsObject(v) {
					d.Objects = append(d.Objects, name)
				}
				if shownAsSequence(v) {
					d.Sequences = append(d.Sequences, name)
				}
			case cut:
				d.Cut = append(d.Cut, name)
			}
		}
	}
	sorted := func(ss []string) []string { slices.Sort(ss); return slices.Compact(ss) }
	d.Holders, d.Texts = sorted(d.Holders), sorted(d.Texts)
	d.Cut = slices.DeleteFunc(d.Cut, func(name string) bool { _, found := slices.BinarySearch(d.Holders, name); return found })
	d.Cut, d.Objects, d.Sequences = sorted(d.Cut), sorted(d.Objects), sorted(d.Sequences)
	return d
}

// shownAsText reports whether v, a value as debugpy shows it, is text: a
// string's or bytes' repr ('...', "...", b'...'), or a list's or a tuple's
// display whose first item is one (a file's lines, a text's chunks).
func shownAsText(v string) bool {
	if shownAsSequence(v) {
		v = v[1:]
	}
	v = strings.TrimPrefix(v, "b")
	return v != "" && (v[0] == '\'' || v[0] == '"')
}

// shownAsSequence reports whether v, a value as debugpy shows it, is a
// list's or a tuple's display ([...], (...)): its constant indexes and
// slices pick its elements whole.
func shownAsSequence(v string) bool {
	n := len(v)
	return n >= 2 && (v[0] == '[' && v[n-1] == ']' || v[0] == '(' && v[n-1] == ')')
}

// shownAsObject reports whether v, a value as debugpy shows it, is an
// object's or a container's (derived.objects): a dict, list, tuple or set
// display, an instance's <...>, or a class's name and "(" (a dataclass, a
// namedtuple, a Namespace, an OrderedDict). A string ('...', b'...'), a
// number, a bytearray(b'...'), memoryview or array, whose items are its
// characters, and a re.Match, whose string keys are its named groups, are
// not.
func shownAsObject(v string) bool {
	if v == "" {
		return false
	}
	switch v[0] {
	case '<': // but a match, whose string key is a named group: a part of the string it matched
		return !strings.HasPrefix(v, "<re.Match object")
	case '{', '[', '(':
		return true
	}
	i := 0
	for i < len(v) && (v[i] == '_' || v[i] == '.' || 'a' <= v[i]|0x20 && v[i]|0x20 <= 'z' || i > 0 && '0' <= v[i] && v[i] <= '9') {
		i++
	}
	if i == 0 || i >= len(v) || v[i] != '(' {
		return false
	}
	switch v[:i] {
	case "bytearray", "memoryview", "array", "array.array", "str", "bytes":
		return false
	}
	return true
}

// outcome records what became of a call (and what monitor-mode modules said
// of its result); its fsync may follow shortly.
func (g *Gate) outcome(dec audit.Entry, outcome string, res Result, t0 time.Time, monitor ...audit.Verdict) {
	e := g.outcomeEntry(dec, outcome, res, t0, monitor...)
	if err := g.audit.Append(e, false); err != nil {
		g.log.Error("audit log: outcome not recorded", "call", dec.Call, "err", err)
	}
}

func (g *Gate) outcomeEntry(dec audit.Entry, outcome string, res Result, t0 time.Time, monitor ...audit.Verdict) audit.Entry {
	e := audit.Entry{Kind: "outcome", Call: dec.Call, Session: dec.Session, Tool: dec.Tool, Outcome: outcome,
		Monitor: monitor, DurationMS: float64(time.Since(t0).Microseconds()) / 1000}
	if res.IsError && outcome != "not run" && outcome != "held for approval" {
		e.Error = truncate(res.Text, 500)
	}
	return e
}

// monitored are the verdicts of the modules in monitor mode: they do not
// count, and the audit log is where a team reads them.
func monitored(d Decision) []audit.Verdict {
	var out []audit.Verdict
	for _, st := range d.Trace {
		if st.Mode == "monitor" {
			out = append(out, audit.Verdict{Module: st.Module, Verdict: string(st.Verdict), Reason: st.Reason})
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

// isRateLimited: a deny that every module that made it marked as a rate
// limit (the code abi.RateLimited, as the built-in ratelimit answers) is
// recorded as rate-limited. A reason's words are never read for it.
func isRateLimited(d Decision) bool {
	if d.Verdict != Deny || d.Default || len(d.Modules) == 0 {
		return false
	}
	for _, name := range d.Modules {
		limited := false
		for _, st := range d.Trace {
			if st.Module == name && st.Mode == "enforce" && st.Verdict == Deny {
				limited = st.Code == abi.RateLimited
			}
		}
		if !limited {
			return false
		}
	}
	return true
}

// approve holds a call for a person. It returns nil when the person approved
// it (the call runs), else the result to return, and the approval's record.
func (g *Gate) approve(ctx context.Context, call ToolCall, asker Asker, d Decision, cfg *Config) (*Result, *audit.Approval) {
	timeout := cfg.Approval.Wait()
	shown, err := approval.Show(call.Arguments)
	if err != nil {
		return denied(call.Tool, "cannot be put to a person", d, err.Error()+". Send shorter arguments."), &audit.Approval{Channel: "none", State: approval.Denied}
	}
	var stop string
	if call.Stopped != nil {
		stop = call.Stopped()
	}
	b := approval.Bind(call.MCPSession, call.Tool, stop, call.Arguments, reaches(call.Derived))
	res, rec := g.ask(ctx, call, asker, d, cfg, b, shown, timeout)
	if res == nil && stop != "" {
		// Approved where the program was: it may have run on while a
		// person was asked (another call of the agent's).
		if now := call.Stopped(); now != stop {
			res = denied(call.Tool, "did not run", Decision{Reasons: []string{"a person approved it where the program was then (" + stop +
				"), and the program is now elsewhere (" + now + ")"}}, "Call it again where the program is now: a person is asked again.")
		}
	}
	return res, rec
}

// reaches is what a call reaches, as the host derived it (an approval's
// Reaches): each path as it will be used, each address with the user
// whose socket listens there, each process with its user. A module sees
// two other users alike ("other"); a person approved one of them.
func reaches(d *Derived) string {
	if d == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range d.Paths {
		fmt.Fprintf(&b, "path %q %s %q\n", p.Argument, p.Kind, p.Resolved)
	}
	for _, a := range d.Addresses {
		fmt.Fprintf(&b, "address %q %s port %d uid %d\n", a.Argument, a.Address, a.Port, a.UID)
	}
	for _, p := range d.Processes {
		fmt.Fprintf(&b, "process %q %d uid %d\n", p.Argument, p.PID, p.UID)
	}
	return b.String()
}

// stopNote is the line of a question that says where the program is.
func stopNote(stop string) string {
	if stop == "" {
		return ""
	}
	return "Where the program is: " + approval.Prose(stop) + "; the call runs there only.\n"
}

// ask puts the call bound as b to a person, on the first channel that can
// take it: nil and the record when the person approved it.
func (g *Gate) ask(ctx context.Context, call ToolCall, asker Asker, d Decision, cfg *Config, b approval.Binding, shown string, timeout time.Duration) (*Result, *audit.Approval) {
	channels := cfg.Approval.Channels
	if slices.Contains(channels, "elicitation") && asker != nil {
		res, rec, ok := g.elicit(ctx, call, asker, b, shown, d, timeout)
		if ok || !slices.Contains(channels, "cli") || !g.cli {
			return res, rec
		}
		g.log.Warn("elicitation failed; falling back to the cli channel", "tool", call.Tool, "err", res.Text)
	}
	if slices.Contains(channels, "cli") && g.cli {
		r, err := g.approvals.Hold("cli", b, call.Arguments, d.Reasons, timeout)
		if err != nil {
			return denied(call.Tool, "needs a person's approval, and none can be asked now", d, err.Error()+"."),
				&audit.Approval{Channel: "cli", State: approval.Denied}
		}
		rec := &audit.Approval{ID: r.ID, Channel: "cli", State: r.State}
		switch r.State {
		case approval.Approved:
			return nil, rec
		case approval.Denied:
			return denied(call.Tool, "was denied by a person (approval "+r.ID+", `debugpy-guard deny`)", d,
				"Do not retry it unchanged; ask the user what they want instead."), rec
		}
		var sb strings.Builder
		fmt.Fprintf(&sb, "%s needs a person's approval", call.Tool)
		if len(d.Modules) > 0 {
			fmt.Fprintf(&sb, " (module %s)", strings.Join(d.Modules, ", "))
		}
		fmt.Fprintf(&sb, ": %s.\nIt did not run. Approval id: %s. Ask the user to run\n\n    debugpy-guard approve %s\n\n(or `debugpy-guard deny %s`), then call %s again with the same arguments within %v",
			strings.Join(d.Reasons, "; "), r.ID, r.ID, r.ID, call.Tool, timeout)
		if b.Stop != "" {
			fmt.Fprintf(&sb, ", while the program is where it is now (%s): anywhere else a person is asked again", b.Stop)
		}
		sb.WriteString(". `debugpy-guard approvals` lists the calls waiting.")
		return &Result{IsError: true, Text: sb.String(), Structured: map[string]any{"decision": Approve, "approval_id": r.ID,
			"command": "debugpy-guard approve " + r.ID, "expires": r.Expires.UTC().Format(time.RFC3339)}}, rec
	}
	return denied(call.Tool, "needs a person's approval, and no approval channel is available", d,
			"The client does not support elicitation and the cli channel is off ([approval] channels), so the call is denied. A user can enable a channel or allow the call in the policy config (--config)."),
		&audit.Approval{Channel: "none", State: approval.Denied}
}

// elicit asks through asker. ok is false when asking itself failed (not
// when the person said no), so that another channel may be tried.
func (g *Gate) elicit(ctx context.Context, call ToolCall, asker Asker, b approval.Binding, shown string, d Decision, timeout time.Duration) (res *Result, rec *audit.Approval, ok bool) {
	rec = &audit.Approval{Channel: "elicitation"}
	q := Question{Tool: call.Tool, Timeout: timeout,
		// The arguments go last, next to the answer: a long reason before
		// them cannot push them out of sight.
		Message: fmt.Sprintf("An AI agent wants to run %s (%s).\nThe policy asks a person because: %s.\n%sIts arguments, every one shown in full:\n%s\n\nApprove it to run it once.",
			call.Tool, call.Category, approval.Reasons(d.Reasons), stopNote(b.Stop), shown),
		Hold: func() (string, error) {
			r, err := g.approvals.Hold("elicitation", b, call.Arguments, d.Reasons, timeout)
			return r.ID, err
		},
		Take: func(id string) error { _, err := g.approvals.Take(id, b); return err },
	}
	a, held, err := asker.Ask(ctx, q)
	rec.ID = a.ID
	switch {
	case err != nil:
		rec.State = Failed
		return &Result{IsError: true, Text: fmt.Sprintf("%s needs approval, and asking the user failed: %v", call.Tool, err)}, rec, false
	case held != nil:
		rec.State = approval.Pending
		return held, rec, true
	}
	rec.State = a.State
	switch a.State {
	case Approved:
		return nil, rec, true
	case Cancelled:
		return denied(call.Tool, "was not run: the user cancelled the approval prompt", d, "Ask the user before calling it again."), rec, true
	case TimedOut:
		return denied(call.Tool, "was not run: the user did not answer within "+timeout.String(), d, "Call it again to ask the user again."), rec, true
	case Failed:
		return denied(call.Tool, "was not approved", d, a.Why+" Call it again to ask the user again."), rec, true
	default:
		rec.State = Declined
		return denied(call.Tool, "was declined by the user", d, "Do not retry it unchanged; ask the user what they want instead."), rec, true
	}
}

// checkResult runs the result phase on the structured result (or, for an
// error result, on its text) and says what became of it, and what the
// modules in monitor mode said.
func (g *Gate) checkResult(ctx context.Context, p Decider, ec Call, res Result) (Result, string, []audit.Verdict) {
	outcome := "ok"
	if res.IsError {
		outcome = "error"
	}
	var body any = res.Structured
	if res.IsError || body == nil {
		body = map[string]any{"error": res.Text}
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return *denied(ec.Tool, "result withheld by policy", Decision{Reasons: []string{"engine: cannot encode the result: " + err.Error()}}, ""), "withheld", nil
	}
	ec.Phase, ec.Result = PhaseResult, raw
	d := p.Decide(ctx, ec)
	g.log.Info("decision", "phase", "result", "tool", ec.Tool, "decision", d.Verdict, "reasons", strings.Join(d.Reasons, "; "))
	monitor := monitored(d)
	if d.Verdict != Allow {
		return *denied(ec.Tool, "result withheld by policy", d, "The call ran; its result is not shown. A user can change this in the policy config (--config)."), "withheld", monitor
	}
	if d.Result == nil {
		if !res.IsError {
			res.encoded = raw
		}
		return res, outcome, monitor
	}
	// Rewritten (redacted): the text shows the rewritten result too, since
	// the original text would repeat what was masked.
	var rewritten any
	if err := json.Unmarshal(d.Result, &rewritten); err != nil {
		return *denied(ec.Tool, "result withheld by policy", Decision{Reasons: []string{"a module rewrote the result into invalid JSON"}, Modules: d.Modules}, ""), "withheld", monitor
	}
	out := Result{IsError: res.IsError}
	text := string(d.Result)
	if m, ok := rewritten.(map[string]any); ok && res.IsError {
		text = fmt.Sprint(m["error"])
		out.Text = "(rewritten by policy: " + strings.Join(d.Reasons, "; ") + ")\n" + text
		return out, "rewritten", monitor
	}
	out.Structured, out.encoded = rewritten, d.Result
	var original any
	json.Unmarshal(raw, &original)
	changed, gone := changedLeaves(original, rewritten, nil, nil)
	if len(changed) == 0 && len(gone) == 0 {
		out.Text = res.Text // rewritten to the same: nothing to say
		return out, outcome, monitor
	}
	// The tool's own text, with each value the modules changed changed in
	// it too; if one is still there (the text shows it otherwise), the
	// rewritten result as JSON instead.
	if t, ok := rewriteText(res.Text, changed, gone); ok {
		out.Text = fmt.Sprintf("(policy %s changed %d value(s) of this result)\n%s", strings.Join(d.Modules, ", "), len(changed)+len(gone), t)
	} else {
		out.Text = "(rewritten by policy: " + strings.Join(d.Reasons, "; ") + ")\n" + text
	}
	return out, "rewritten", monitor
}

// changedLeaves walks a result and its rewrite side by side and lists the
// scalars the rewrite changed (as text: old, new) and the ones it removed.
func changedLeaves(a, b any, changed [][2]string, gone []string) ([][2]string, []string) {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		for k, x := range av {
			if y, in := bv[k]; ok && in {
				changed, gone = changedLeaves(x, y, changed, gone)
			} else {
				gone = leaves(x, gone)
			}
		}
		return changed, gone
	case []any:
		bv, ok := b.([]any)
		for i, x := range av {
			if ok && i < len(bv) {
				changed, gone = changedLeaves(x, bv[i], changed, gone)
			} else {
				gone = leaves(x, gone)
			}
		}
		return changed, gone
	}
	switch b.(type) {
	case map[string]any, []any:
		return changed, leaves(a, gone)
	}
	if old, new := leafText(a), leafText(b); old != new {
		changed = append(changed, [2]string{old, new})
	}
	return changed, gone
}

func leaves(v any, out []string) []string {
	switch v := v.(type) {
	case map[string]any:
		for _, x := range v {
			out = leaves(x, out)
		}
	case []any:
		for _, x := range v {
			out = leaves(x, out)
		}
	default:
		out = append(out, leafText(v))
	}
	return out
}

func leafText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// rewriteText replaces, in text, each changed value by its rewrite
// (longest first, so a value inside another is not half replaced) and
// says whether no changed or removed value of more than 3 bytes is left in
// it (shorter ones, a number or a flag, are too common to look for).
//
// A value that is a bare word (None, True, 5, -1.5: no quote or bracket
// marks where it stands) is replaced only where it stands as a word, and
// it and a value of fewer than 4 bytes (an empty string's quotes, 'a')
// only when the text shows it no more times than it was changed: a row
// named for a secret whose value was None made every None of a listing,
// and NoneType, [redacted] (found 2026-12-08). Where the text shows it
// elsewhere too, which of them were changed is not known, and the
// rewritten result is shown as JSON instead.
func rewriteText(text string, changed [][2]string, gone []string) (string, bool) {
	sort.Slice(changed, func(i, j int) bool { return len(changed[i][0]) > len(changed[j][0]) })
	times := map[string]int{}
	for _, c := range changed {
		times[c[0]]++
	}
	for _, c := range changed {
		switch {
		case c[0] == "":
		case bareWord(c[0]):
			if countWords(text, c[0]) > times[c[0]] {
				return "", false
			}
			text = replaceWords(text, c[0], c[1])
		case len(c[0]) < 4: // '' or 'a': as common as a bare word
			if strings.Count(text, c[0]) > times[c[0]] {
				return "", false
			}
			text = strings.ReplaceAll(text, c[0], c[1])
		default:
			text = strings.ReplaceAll(text, c[0], c[1])
		}
	}
	for _, c := range changed {
		if len(c[0]) > 3 && (bareWord(c[0]) && countWords(text, c[0]) > 0 || !bareWord(c[0]) && strings.Contains(text, c[0])) {
			return "", false
		}
	}
	for _, g := range gone {
		if len(g) > 3 && strings.Contains(text, g) {
			return "", false
		}
	}
	return text, true
}

// bareWord: v is a value written with no quote or bracket (None, True,
// 5, -1.5), which a text may show beside other words.
func bareWord(v string) bool {
	return !strings.ContainsAny(v, "'\"<>()[]{} ")
}

// countWords counts the places where v stands as a word in text (no
// letter, digit or '_' against either end).
func countWords(text, v string) int {
	n := 0
	for i := wordIndex(text, v, 0); i >= 0; i = wordIndex(text, v, i+len(v)) {
		n++
	}
	return n
}

// replaceWords replaces v by with where v stands as a word in text.
func replaceWords(text, v, with string) string {
	var b strings.Builder
	last := 0
	for i := wordIndex(text, v, 0); i >= 0; i = wordIndex(text, v, i+len(v)) {
		b.WriteString(text[last:i])
		b.WriteString(with)
		last = i + len(v)
	}
	b.WriteString(text[last:])
	return b.String()
}

// wordIndex is the first place at or after from where v stands as a word
// in text, or -1.
func wordIndex(text, v string, from int) int {
	for from <= len(text) {
		i := strings.Index(text[from:], v)
		if i < 0 {
			return -1
		}
		i += from
		end := i + len(v)
		if !(i > 0 && wordByte(text[i-1]) && wordByte(v[0]) || end < len(text) && wordByte(text[end]) && wordByte(v[len(v)-1])) {
			return i
		}
		from = i + 1
	}
	return -1
}

// wordByte: c is a letter, a digit or '_'.
func wordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c|0x20 && c|0x20 <= 'z'
}

// mask masks the session's secrets (plugins.Secrets) in res, in its text
// and in every string of its structured result, and says how many strings
// it changed. Most results hold none: a scan of their JSON (the bytes the
// result phase already encoded for the modules) and text says so, and only
// then is the structured result rebuilt.
func (g *Gate) mask(session string, res Result) (Result, int) {
	if g.secrets == nil {
		return res, 0
	}
	m := g.secrets.Masker(session)
	if m == nil {
		return res, 0
	}
	raw := res.encoded
	if raw == nil && res.Structured != nil {
		var err error
		if raw, err = json.Marshal(res.Structured); err != nil {
			res.Structured, res.encoded = nil, nil // cannot be checked: not shown
			return res, 1
		}
	}
	if !m.InString(res.Text) && !m.In(raw) {
		if res.Structured == nil || !hasItemRows(raw) {
			return res, 0
		}
		if !itemsSpell(raw, m) {
			return res, 0
		}
	}
	n := 0
	masked := func(s string) string {
		t := m.Replace(s)
		if t != s {
			n++
		}
		return t
	}
	res.Text = masked(res.Text)
	if res.Structured != nil { // a secret found in the text alone may be spelled otherwise in it
		var tree any
		if json.Unmarshal(raw, &tree) != nil {
			res.Structured = nil
			n++
		} else {
			res.Structured = maskTree(tree, masked)
			if k := maskItems(res.Structured, m); k > 0 {
				// The tool's text shows each item on a row of its own,
				// where a short value ('Q', 81) cannot be found again:
				// the masked result is shown as JSON instead.
				n += k
				var text strings.Builder
				enc := json.NewEncoder(&text)
				enc.SetEscapeHTML(false)
				enc.SetIndent("", " ")
				enc.Encode(res.Structured) // decoded from JSON: it encodes
				res.Text = "(" + strconv.Itoa(k) + " items of this result spell a secret of the session, masked; the result as JSON)\n" + text.String()
			}
		}
		res.encoded = nil
	}
	return res, n
}

// A listing's rows (a variables result's, plugins/ABI.md) each show one
// item of a container, named by its index ("0", "07"): list(password)
// listed by its variables_reference showed the secret a character a row,
// while its display, ['Q', 'v', ...], was masked. So the rows of the
// items of each container listed (a result's variables, a row's
// children) are read together as the container's display
// (plugins.Masker.Items), cut after the last when the listing was cut
// (truncated: max_items).

// hasItemRows reports whether raw, a result as JSON, may hold a listing's
// row of an item: a "name" whose value begins with a digit (spaces
// around the colon too: a team's module may rewrite a result so), in one
// pass.
func hasItemRows(raw []byte) bool {
	key := []byte(`"name"`)
	for i := bytes.Index(raw, key); i >= 0; {
		j := i + len(key)
		for j < len(raw) && (raw[j] == ' ' || raw[j] == '\t' || raw[j] == '\n' || raw[j] == '\r' || raw[j] == ':') {
			j++
		}
		if j+1 < len(raw) && raw[j] == '"' && '0' <= raw[j+1] && raw[j+1] <= '9' {
			return true
		}
		k := bytes.Index(raw[j:], key)
		if k < 0 {
			return false
		}
		i = j + k
	}
	return false
}

// listed is a listing as itemsSpell reads it: its rows' names and values.
type listed struct {
	Truncated bool  `json:"truncated"`
	Variables []row `json:"variables"`
}

type row struct {
	Name      string `json:"name"`
	Value     string `json:"value"`
	Truncated bool   `json:"truncated"`
	Children  []row  `json:"children"`
}

// itemsSpell reports whether a run of raw's item rows spells a secret
// (maskItems would mask one): decoded into a listing's shape alone, which
// takes half the time of the whole result's, and most listings spell none.
func itemsSpell(raw []byte, m *plugins.Masker) bool {
	var l listed
	if json.Unmarshal(raw, &l) != nil {
		return false // no listing: the result as it is (a secret in it was looked for)
	}
	var spell func(rows []row, more bool) bool
	spell = func(rows []row, more bool) bool {
		names, values := make([]string, len(rows)), make([]string, len(rows))
		for i, r := range rows {
			names[i], values[i] = r.Name, r.Value
		}
		if len(spellingItems(names, values, m, more)) > 0 {
			return true
		}
		for _, r := range rows {
			if len(r.Children) > 0 && spell(r.Children, r.Truncated) {
				return true
			}
		}
		return false
	}
	return spell(l.Variables, l.Truncated)
}

// maskItems masks, in v (a result decoded), the values of the rows of
// items that spell a secret read together, and returns how many.
func maskItems(v any, m *plugins.Masker) int {
	n := 0
	switch t := v.(type) {
	case []any:
		for _, e := range t {
			n += maskItems(e, m)
		}
	case map[string]any:
		for k, e := range t {
			if rows, ok := e.([]any); ok && (k == "variables" || k == "children") {
				n += maskItemRows(rows, m, t["truncated"] == true)
			}
			n += maskItems(e, m)
		}
	}
	return n
}

// maskItemRows masks the values of rows' items that spell a secret
// (spellingItems), and returns how many.
func maskItemRows(rows []any, m *plugins.Masker, more bool) int {
	names, values := make([]string, len(rows)), make([]string, len(rows))
	for i, r := range rows {
		row, _ := r.(map[string]any)
		names[i], _ = row["name"].(string)
		var ok bool
		if values[i], ok = row["value"].(string); !ok {
			names[i] = "" // no item's row
		}
	}
	n := 0
	for _, i := range spellingItems(names, values, m, more) {
		if row := rows[i].(map[string]any); row["value"] != plugins.Mask {
			row["value"] = plugins.Mask
			n++
		}
	}
	return n
}

// spellingItems returns the indexes of the rows (their names and values)
// of items that spell a secret, each run of item rows read as one
// container's display; more says the container has items past the rows
// (the last run is cut).
func spellingItems(names, values []string, m *plugins.Masker, more bool) []int {
	var runs [][2]int // [from, to) of each run of item rows
	for i, name := range names {
		switch {
		case !itemName(name):
		case len(runs) > 0 && runs[len(runs)-1][1] == i:
			runs[len(runs)-1][1]++
		default:
			runs = append(runs, [2]int{i, i + 1})
		}
	}
	var out []int
	for k, r := range runs {
		for i, in := range m.Items(values[r[0]:r[1]], more && k == len(runs)-1) {
			if in {
				out = append(out, r[0]+i)
			}
		}
	}
	return out
}

// itemName reports whether name is a container's item's, as debugpy names
// it: its index, in decimal digits.
func itemName(name string) bool {
	if name == "" || len(name) > 20 {
		return false
	}
	for i := 0; i < len(name); i++ {
		if name[i] < '0' || name[i] > '9' {
			return false
		}
	}
	return true
}

func maskTree(v any, m func(string) string) any {
	switch t := v.(type) {
	case string:
		return m(t)
	case []any:
		for i := range t {
			t[i] = maskTree(t[i], m)
		}
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[m(k)] = maskTree(e, m)
		}
		return out
	}
	return v
}

// denied is the isError result of a call the policy stopped: what
// happened, the modules, the reasons, and what the user could change.
func denied(tool, what string, d Decision, next string) *Result {
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
	return &Result{IsError: true, Text: b.String()}
}

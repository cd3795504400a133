// Package sdk is the guest side of ABI v1 for policy modules written in Go.
//
// A policy is one function from request to decision, registered in init:
//
//	func init() {
//		sdk.Handle(func(r *sdk.Request) sdk.Decision {
//			if r.Category() == "execute" {
//				return sdk.Approve("execute needs a person")
//			}
//			return sdk.Allow("")
//		})
//	}
//	func main() {}
//
// Build it with the standard toolchain:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -trimpath -o policy.wasm .
//
// The SDK hides the ABI (plugins/ABI.md): it reads the request, parses it
// without reflection, calls the handler and writes the response.
package sdk

import (
	"bytes"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/debugpy-guard/debugpy-guard/plugins/abi"
)

// Request is one tool call (phase "call") or its result (phase "result").
type Request struct {
	v        Value
	settings Value // in a batch, this entry's settings
	batched  bool

	// The request's members, indexed as a scan finds them, on first use:
	// each accessor below would otherwise scan the request from its start
	// again. next is where the scan goes on (0: not begun, -1: done).
	top    []topMember
	topBuf [16]topMember
	next   int

	// phase, tool and category, read once (a batch reads them once for
	// all its entries: each policy asks for them).
	phase, tool, category string
	named                 bool
}

// topMember is a member's key and where its value is in the request: four
// words at most, so that a Go wasm guest copies it without a memmove call
// (int32 offsets: a request is in a module's memory, far below 2 GiB).
type topMember struct {
	key    []byte
	v0, v1 int32
}

func (r *Request) val(m topMember) Value { return Value{raw: r.v.raw[m.v0:m.v1]} }

// get is r.get(key), from the index of members (the first of repeated
// keys, as Value.Get).
func (r *Request) get(key string) Value { return r.find(key, "") }

// find is the value of the first member key, from the index and then by
// scanning on; a scan stops at a member named stop (see scan).
func (r *Request) find(key, stop string) Value {
	for i := range r.top {
		if string(r.top[i].key) == key {
			return r.val(r.top[i])
		}
	}
	for {
		m, ok := r.scan(stop)
		if !ok {
			return Value{}
		}
		if string(m.key) == key {
			return r.val(m)
		}
	}
}

// scan indexes the request's next member and returns it; ok is false at
// the end. When the member's key is stop, it stops at the value: the member
// is not indexed (the next scan starts at it again), and its value is the rest
// of the request from the value on (see batch).
func (r *Request) scan(stop string) (m topMember, ok bool) {
	b, i := r.v.raw, r.next
	if i < 0 {
		return m, false
	}
	if i == 0 {
		if len(b) == 0 || b[0] != '{' {
			r.next = -1
			return m, false
		}
		i, r.top = 1, r.topBuf[:0]
	}
	k, v, esc, ok := memberAt(b, i)
	if !ok {
		r.next = -1
		return m, false
	}
	if esc {
		k = []byte(unescape(k))
	}
	if stop != "" && string(k) == stop {
		return topMember{k, int32(v), int32(len(b))}, true // r.next stays at the member
	}
	ve := end(b, v)
	if ve <= v {
		r.next = -1
		return m, false
	}
	m = topMember{k, int32(v), int32(ve)}
	r.top = append(r.top, m)
	r.next = afterValue(b, ve)
	return m, true
}

// batch is the start of the request's "batch" array, and the rest of the
// request after it: its elements are read up to its ']', and the array is
// not scanned once more to index it (it is the last member the host writes,
// and the longest).
func (r *Request) batch() Value { return r.find("batch", "batch") }

// Raw is the whole request.
func (r *Request) Raw() Value { return r.v }

// names reads the phase, the tool and the category once. A Request is
// reused from call to call (newRequest), and the calls a module gets are
// mostly of a few tools: a name the same as the last call's is that string
// again, not a new one (an allocation, which a cold call pays for most).
func (r *Request) names() {
	if !r.named {
		r.named = true
		r.phase = r.get("phase").StrAgain(r.phase)
		r.tool = r.get("tool").StrAgain(r.tool)
		r.category = r.get("category").StrAgain(r.category)
	}
}

// Phase is "call" or "result".
func (r *Request) Phase() string { r.names(); return r.phase }

// Tool is the tool's name, e.g. debugpy_evaluate.
func (r *Request) Tool() string { r.names(); return r.tool }

// Category is read, write or execute.
func (r *Request) Category() string { r.names(); return r.category }

// Arguments are the tool call's arguments.
func (r *Request) Arguments() Value { return r.get("arguments") }

// Arg is one argument (a Missing Value when absent).
func (r *Request) Arg(name string) Value { return r.get("arguments").Get(name) }

// Result is the tool's structured result (phase "result" only).
func (r *Request) Result() Value { return r.get("result") }

// SessionID is the MCP session's id.
func (r *Request) SessionID() string { return r.get("session").Get("id").Str() }

// Client is the MCP client's name.
func (r *Request) Client() string { return r.get("session").Path("client", "name").Str() }

// DebugSession describes the debug session the call is for: name, host,
// port, pid, state (Missing when there is none).
func (r *Request) DebugSession() Value { return r.get("debug_session") }

// Derived is what the host derived from the arguments (plugins/ABI.md):
// "code" (each piece of Python debugpy will run: argument, kind, text),
// "paths" (argument, kind, given, resolved, session), "addresses"
// (argument, host, address, port, owner), "processes" (argument, pid,
// owner) and, for a call with code, "holders"
// (the stopped frame's names whose values hold a secret), "cut" (those
// shown cut short) and "objects" (the holders shown as an object or a
// container). Judge these, not the arguments' spelling.
func (r *Request) Derived() Value { return r.get("derived") }

// Settings are the module's settings from the TOML config.
func (r *Request) Settings() Value {
	if r.batched {
		return r.settings
	}
	return r.get("settings")
}

// Time is the time of the call (RFC 3339), or the zero time.
func (r *Request) Time() time.Time {
	t, _ := time.Parse(time.RFC3339Nano, r.get("time").Str())
	return t
}

// Decision is a module's answer.
type Decision struct {
	Verdict abi.Verdict // allow, deny, approve or abstain
	Reason  string
	Code    string // a reason code for the audit log (abi.RateLimited), or ""
	result  *Value
}

// Allow lets the call go on.
func Allow(reason string) Decision { return Decision{Verdict: abi.Allow, Reason: reason} }

// Deny stops the call.
func Deny(reason string) Decision { return Decision{Verdict: abi.Deny, Reason: reason} }

// RateLimit stops the call as a rate limit: the audit log records it as
// rate-limited (when every module that denied it says so), not as deny.
func RateLimit(reason string) Decision {
	return Decision{Verdict: abi.Deny, Reason: reason, Code: abi.RateLimited}
}

// Approve holds the call for a person (in phase result it counts as deny).
func Approve(reason string) Decision { return Decision{Verdict: abi.Approve, Reason: reason} }

// Abstain leaves the call to the other modules and the defaults.
func Abstain() Decision { return Decision{Verdict: abi.Abstain} }

// Rewrite allows the result and replaces it with v (phase result only).
func Rewrite(reason string, v Value) Decision {
	return Decision{Verdict: abi.Allow, Reason: reason, result: &v}
}

// Encode is the decision as the ABI's response JSON.
func (d Decision) Encode() []byte { return d.appendJSON(make([]byte, 0, 64), nil) }

// appendJSON appends the decision's JSON; with last, the reason's JSON is
// taken from there when it is the very string encoded there last.
func (d Decision) appendJSON(b []byte, last *encodedReason) []byte {
	b = append(b, `{"decision":`...)
	b = abi.AppendVerdict(b, d.Verdict)
	b = append(b, `,"reason":`...)
	b = last.append(b, d.Reason)
	if d.Code != "" {
		b = append(b, `,"code":`...)
		b = abi.AppendString(b, d.Code)
	}
	if d.result != nil {
		b = append(b, `,"result":`...)
		b = d.result.AppendJSON(b)
	}
	return append(b, '}')
}

var (
	handler   func(*Request) Decision
	prepare   func(settings Value) func(*Request) Decision
	validator func(settings Value) error
)

// Handle registers the policy. Call it from init. The *Request it is given
// is valid during the call only: the SDK reuses it for the next call, so
// keep what you need of it (a string, a Value built with the constructors),
// never the Request or a Value read from it.
func Handle(fn func(*Request) Decision) { register(fn, nil) }

// HandlePrepared registers the policy as made from its settings: fn reads
// them once and returns the handler for them, which decides every call that
// has the same settings (a module's are the same at every call; a module
// whose code serves several entries of a config, as the built-ins do,
// keeps one handler for each). Call it from init instead of Handle. fn may
// keep the settings Value it is given; the handler is given a *Request as
// Handle's is.
func HandlePrepared(fn func(settings Value) func(*Request) Decision) { register(nil, fn) }

// register sets the policy, and forgets the handlers prepared by another
// (a policy's tests may register several in turn).
func register(h func(*Request) Decision, p func(settings Value) func(*Request) Decision) {
	prepared.mu.Lock()
	defer prepared.mu.Unlock()
	batchMu.Lock()
	defer batchMu.Unlock()
	handler, prepare = h, p
	prepared.entries, prepared.n, prepared.last, prepared.p = [preparedSize]preparedHandler{}, 0, 0, 0
	batchEntries = nil
}

// handlerFor is the handler for r: the one registered with Handle, or the
// one HandlePrepared's fn made for r's settings. A handler registered with
// Handle does not need them, so the request is not scanned to its last
// member for them.
func handlerFor(r *Request) func(*Request) Decision {
	if prepare == nil {
		return handler
	}
	return prepared.get(r.Settings().raw)
}

// prepared keeps the handlers made by HandlePrepared's fn, by their
// settings' JSON: a small array searched in turn from the entry after the
// one found last, as calls ask for the same few settings in the same order
// (a map would hash the settings' bytes at each call, which a Go wasm guest
// does a byte at a time). Past preparedSize, a new entry replaces the
// oldest. A batch does not search it: batchEntries.
var prepared preparedHandlers

const preparedSize = 16

type preparedHandlers struct {
	mu         sync.Mutex // a policy's own tests may call Evaluate from several goroutines
	entries    [preparedSize]preparedHandler
	n, last, p int // entries in use, the entry found last, the entry a miss replaces once all are in use
}

type preparedHandler struct {
	settings []byte
	h        func(*Request) Decision
}

func (c *preparedHandlers) get(raw []byte) func(*Request) Decision {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.n {
		j := (c.last + 1 + i) % c.n
		if string(c.entries[j].settings) == string(raw) {
			c.last = j
			return c.entries[j].h
		}
	}
	own := bytes.Clone(raw) // fn may keep its settings; the request's bytes are the next call's
	h := prepare(view(own))
	j := c.n
	if c.n < preparedSize {
		c.n++
	} else {
		j, c.p = c.p, (c.p+1)%preparedSize
	}
	c.entries[j], c.last = preparedHandler{own, h}, j
	return h
}

// Validate registers a check of the module's settings, run once at load; an
// error rejects the config with its text.
func Validate(fn func(settings Value) error) { validator = fn }

// Evaluate runs the registered handler on a request's JSON and returns the
// response's JSON and whether it is an error (the ABI's non-zero return).
// The ABI glue calls it; tests of a policy may call it directly.
func Evaluate(input []byte) (out []byte, failed bool) { return evaluate(input, nil, nil) }

// evaluate is Evaluate with the response appended to out, and the reason's
// JSON kept in last: the ABI glue passes the last call's buffer, which the
// host has copied (a new one cost a Go wasm guest an allocation and its
// zeroing at every call), and its reason.
func evaluate(input, out []byte, last *encodedReason) ([]byte, bool) {
	if handler == nil && prepare == nil {
		return []byte("no handler: call sdk.Handle or sdk.HandlePrepared in init"), true
	}
	v := view(input)
	if v.Kind() != Object {
		return []byte("request: not a JSON object"), true
	}
	r := newRequest(v, false)
	defer r.release()
	return handlerFor(r)(r).appendJSON(out, last), false
}

// encodedReason is a reason and its JSON. A prepared policy that keeps a
// decision (the category policy does, for the tool an agent asks again and
// again) gives the same string at every call; its JSON is kept, not made
// again, since a Go wasm guest encodes a string a byte at a time. The same
// string is the same bytes at the same address: kept here, the string is
// not collected, so no other string is ever made at its address.
type encodedReason struct {
	reason string
	json   []byte
}

func (e *encodedReason) append(b []byte, reason string) []byte {
	if reason == "" { // an abstain's
		return append(b, '"', '"')
	}
	if e == nil || len(reason) < 16 { // short: encoded sooner than compared
		return abi.AppendString(b, reason)
	}
	if len(reason) == len(e.reason) && unsafe.StringData(reason) == unsafe.StringData(e.reason) {
		return append(b, e.json...)
	}
	n := len(b)
	b = abi.AppendString(b, reason)
	e.reason, e.json = reason, append(e.json[:0], b[n:]...)
	return b
}

// newRequest is a Request for v, reused from an earlier call with its
// fields reset one by one: zeroing one whole (a kilobyte) cost a Go wasm
// guest more than the rest of a small call. release gives it back.
func newRequest(v Value, batched bool) *Request {
	r := spareRequest.Swap(nil)
	if r == nil {
		r = new(Request)
	}
	r.v, r.settings, r.batched, r.next, r.named = v, Value{}, batched, 0, false
	return r
}

func (r *Request) release() {
	r.v, r.settings, r.top = Value{}, Value{}, nil
	spareRequest.Store(r)
}

// spareRequest is the Request of the last call, for the next: a guest runs
// one call at a time, and a sync.Pool's per-processor lists cost a cold
// call more than this one word (a policy's own tests that call from
// several goroutines make a Request when another holds it).
var spareRequest atomic.Pointer[Request]

// EvaluateBatch runs the handler once for each element of the request's
// "batch" member, with that element as the request's settings, and returns
// the decisions as one JSON array, in order. The host asks a batch of the
// modules of one chain that a config loads from the same code (the
// built-ins), so that they cost one guest call
// (guard_evaluate_batch, plugins/ABI.md). entry(i) runs before element i:
// it tells the host whose counters and log the calls that follow are.
func EvaluateBatch(input []byte, entry func(i int)) (out []byte, failed bool) {
	return evaluateBatch(input, entry, make([]byte, 0, 512))
}

// evaluateBatch is EvaluateBatch with the response appended to out (see
// evaluate).
func evaluateBatch(input []byte, entry func(i int), out []byte) ([]byte, bool) {
	if handler == nil && prepare == nil {
		return []byte("no handler: call sdk.Handle or sdk.HandlePrepared in init"), true
	}
	v := view(input)
	if v.Kind() != Object {
		return []byte("request: not a JSON object"), true
	}
	batchMu.Lock() // batchSettings, batchEntries: a policy's own tests may call it from several goroutines
	defer batchMu.Unlock()
	// One Request for every entry: its index of members, phase, tool and
	// category are read once, and only the settings change.
	r := newRequest(v, true)
	defer r.release()
	batch := r.batch()
	if batch.Kind() != Array {
		return []byte("request: no batch array"), true
	}
	r.names()
	out = append(out, '[')
	batch.elementsAsBefore(&batchSettings, func(i int, raw []byte, same bool) bool {
		entry(i)
		if i > 0 {
			out = append(out, ',')
		}
		r.settings = view(raw)
		for len(batchEntries) <= i {
			batchEntries = append(batchEntries, batchEntry{})
		}
		e, h := &batchEntries[i], handler
		if prepare != nil {
			if !same || e.h == nil { // another config's chain, say: look it up
				e.h = prepared.get(raw)
			}
			h = e.h
		}
		out = h(r).appendJSON(out, &e.reason)
		return true
	})
	return append(out, ']'), false
}

// batchSettings are the batch's elements as the last call had them: a
// config's modules have the same settings at every call, so each element
// is found by one comparison, not a scan (elementsAsBefore), and
// batchEntries[i].h, prepared for element i's settings, decides it while
// they stay the same.
var (
	batchMu       sync.Mutex
	batchSettings [][]byte
	batchEntries  []batchEntry
)

// batchEntry is what a batch keeps of its entry i from call to call.
type batchEntry struct {
	h      func(*Request) Decision // prepared for the entry's settings (HandlePrepared)
	reason encodedReason           // the entry's last reason
}

// ValidateSettings runs the registered validator on the settings' JSON.
func ValidateSettings(input []byte) (out []byte, failed bool) {
	if validator == nil {
		return nil, false
	}
	v, err := Parse(input)
	if err != nil {
		return []byte("settings: " + err.Error()), true
	}
	if err := validator(v); err != nil {
		return []byte(err.Error()), true
	}
	return nil, false
}

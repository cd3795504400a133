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

import "time"

// Request is one tool call (phase "call") or its result (phase "result").
type Request struct {
	v Value
}

// Raw is the whole request.
func (r *Request) Raw() Value { return r.v }

// Phase is "call" or "result".
func (r *Request) Phase() string { return r.v.Get("phase").Str() }

// Tool is the tool's name, e.g. debugpy_evaluate.
func (r *Request) Tool() string { return r.v.Get("tool").Str() }

// Category is read, write or execute.
func (r *Request) Category() string { return r.v.Get("category").Str() }

// Arguments are the tool call's arguments.
func (r *Request) Arguments() Value { return r.v.Get("arguments") }

// Arg is one argument (a Missing Value when absent).
func (r *Request) Arg(name string) Value { return r.v.Get("arguments").Get(name) }

// Result is the tool's structured result (phase "result" only).
func (r *Request) Result() Value { return r.v.Get("result") }

// SessionID is the MCP session's id.
func (r *Request) SessionID() string { return r.v.Path("session", "id").Str() }

// Client is the MCP client's name.
func (r *Request) Client() string { return r.v.Path("session", "client", "name").Str() }

// DebugSession describes the debug session the call is for: name, host,
// port, pid, state (Missing when there is none).
func (r *Request) DebugSession() Value { return r.v.Get("debug_session") }

// Derived is what the host derived from the arguments (plugins/ABI.md):
// "code" (each piece of Python debugpy will run: argument, kind, text),
// "paths" (argument, kind, given, resolved, session) and "addresses"
// (argument, host, address, port). Judge these, not the arguments' spelling.
func (r *Request) Derived() Value { return r.v.Get("derived") }

// Settings are the module's settings from the TOML config.
func (r *Request) Settings() Value { return r.v.Get("settings") }

// Time is the time of the call (RFC 3339), or the zero time.
func (r *Request) Time() time.Time {
	t, _ := time.Parse(time.RFC3339Nano, r.v.Get("time").Str())
	return t
}

// Decision is a module's answer.
type Decision struct {
	Verdict string // allow, deny, approve or abstain
	Reason  string
	result  *Value
}

// Allow lets the call go on.
func Allow(reason string) Decision { return Decision{Verdict: "allow", Reason: reason} }

// Deny stops the call.
func Deny(reason string) Decision { return Decision{Verdict: "deny", Reason: reason} }

// Approve holds the call for a person (in phase result it counts as deny).
func Approve(reason string) Decision { return Decision{Verdict: "approve", Reason: reason} }

// Abstain leaves the call to the other modules and the defaults.
func Abstain() Decision { return Decision{Verdict: "abstain"} }

// Rewrite allows the result and replaces it with v (phase result only).
func Rewrite(reason string, v Value) Decision {
	return Decision{Verdict: "allow", Reason: reason, result: &v}
}

// Encode is the decision as the ABI's response JSON.
func (d Decision) Encode() []byte {
	b := make([]byte, 0, 64)
	b = append(b, `{"decision":`...)
	b = appendString(b, d.Verdict)
	b = append(b, `,"reason":`...)
	b = appendString(b, d.Reason)
	if d.result != nil {
		b = append(b, `,"result":`...)
		b = d.result.AppendJSON(b)
	}
	return append(b, '}')
}

var (
	handler   func(*Request) Decision
	validator func(settings Value) error
)

// Handle registers the policy. Call it from init.
func Handle(fn func(*Request) Decision) { handler = fn }

// Validate registers a check of the module's settings, run once at load; an
// error rejects the config with its text.
func Validate(fn func(settings Value) error) { validator = fn }

// Evaluate runs the registered handler on a request's JSON and returns the
// response's JSON and whether it is an error (the ABI's non-zero return).
// The ABI glue calls it; tests of a policy may call it directly.
func Evaluate(input []byte) (out []byte, failed bool) {
	if handler == nil {
		return []byte("no handler: call sdk.Handle in init"), true
	}
	v := view(input)
	if v.Kind() != Object {
		return []byte("request: not a JSON object"), true
	}
	return handler(&Request{v: v}).Encode(), false
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

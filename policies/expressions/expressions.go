// Package expressions judges the Python that a call would make debugpy run:
// every piece of code the host derived from the call (plugins/ABI.md,
// derived.code), as pydevd will compile it. It parses each with a parser
// that follows CPython's grammar (tokens.go, parse.go) and judges the tree
// (judge.go says what each node kind gets). What it cannot parse is never
// allowed. Tests compare the parser with CPython's own ast module on
// thousands of expressions (parse_test.go).
package expressions

import (
	"github.com/debugpy-guard/debugpy-guard/plugins/abi"
	"github.com/debugpy-guard/debugpy-guard/plugins/sdk"
	"github.com/debugpy-guard/debugpy-guard/policies/settings"
)

var denyNames = map[string]bool{
	"exec": true, "eval": true, "compile": true, "open": true, "globals": true, "locals": true, "vars": true,
	"getattr": true, "setattr": true, "delattr": true, "breakpoint": true, "input": true, "exit": true, "quit": true,
	"os": true, "sys": true, "subprocess": true, "importlib": true, "builtins": true, "shutil": true, "socket": true,
	"import": true, "lambda": true, "pickle": true, "ctypes": true, "memoryview": true,
}

// Settings are the settings it takes, and their kinds (docs/CONFIG.md
// lists them; a test keeps the two the same).
var Settings = map[string]settings.Kind{"allow_calls": settings.Strings, "deny_names": settings.Strings}

// Validate checks the settings.
func Validate(s sdk.Value) error {
	return settings.Check("expressions", s, Settings)
}

// readRules reads deny_names and allow_calls.
func readRules(s sdk.Value) rules {
	rs := rules{deny: map[string]bool{}, calls: map[string]bool{}, judged: &judgements{}}
	for _, n := range s.Get("deny_names").Elements() {
		rs.deny[n.Str()] = true
	}
	for _, n := range s.Get("allow_calls").Elements() {
		rs.calls[n.Str()] = true
	}
	return rs
}

// Decide is the policy. It judges every piece of code the host derived from
// the call (plugins/ABI.md, derived.code), whichever tool and argument
// carries it: an expression to evaluate, a condition, a hit condition, a
// log message's expression, a value, a repl statement. Told which names of
// the frame hold a secret (derived.holders, derived.cut), it denies code
// that reads part of one (Withheld), before it runs.
//
// Prepare is the same policy with its settings read once (the built-in
// module keeps it while the settings stay the same).
var Prepare, Decide = settings.Prepared(readRules, decide)

func decide(r *sdk.Request, rs rules) sdk.Decision {
	if r.Phase() != "call" {
		return sdk.Abstain()
	}
	// By index, not Elements: a deny then allocates nothing (judgeAt). The
	// host sends a few pieces of code at most (a breakpoint's three).
	code, n := r.Derived().Get("code"), 0
	if code.Kind() == sdk.Array { // Len counts an object's members too
		n = code.Len()
	}
	if n == 0 {
		return sdk.Abstain()
	}
	worst, why := abi.Allow, "plain names, attributes, literal subscripts and comparisons"
	for i := range n {
		v, reason := rs.judgeAt(code.Index(i))
		if v == abi.Deny || (v == abi.Approve && worst == abi.Allow) {
			worst, why = v, reason
		}
		if v == abi.Deny {
			return sdk.Decision{Verdict: worst, Reason: why}
		}
	}
	// Code that reads part of a holder is withheld: before it runs, since
	// what it would run is a person's to approve, and an approved call
	// that copies a part to another name (x = alias[1:]) leaves it where
	// no mask finds it (derived.holders in the call phase). A breakpoint's
	// code runs at each hit, where the names may be others: a person
	// decides, told which name holds a secret here.
	if h, ok := readHeld(r.Derived()); ok {
		notAtHits := func(arg string) bool { return !runsAtHits(arg) }
		pieces := code.Elements()
		if w := h.withheld(pieces, notAtHits, false); w != "" {
			return sdk.Deny(w)
		}
		if w := h.withheld(pieces, runsAtHits, true); w != "" {
			return sdk.Decision{Verdict: abi.Approve, Reason: w + ": a person decides"}
		}
	}
	if texts := r.Derived().Get("texts"); worst == abi.Allow && texts.Kind() == sdk.Array && texts.Len() > 0 {
		if w := textPart(code.Elements(), set(texts)); w != "" {
			return sdk.Decision{Verdict: abi.Approve, Reason: w + ": a person decides. Read it whole, shown as debugpy shows it"}
		}
	}
	return sdk.Decision{Verdict: worst, Reason: why}
}

// textPart returns why code that reads part of a text shown cut short
// (derived.texts: names in the call phase, paths too in the result phase)
// waits for a person, or "".
func textPart(code []sdk.Value, texts map[string]bool) string {
	if len(texts) == 0 {
		return ""
	}
	for _, c := range code {
		if t := ReadsTextPart(c.Get("text").Str(), c.Get("kind").Str(), texts); t != "" {
			return "its " + c.Get("argument").Str() + " reads part of " + t + ", text that debugpy showed cut short (a long string by its ends, a list of strings by its first 100 items), " +
				"past what it showed: what it did not show was read by no one, and a part of a text shows no shape a mask knows " +
				"(a private key's lines below its BEGIN line, a value apart from its name)"
		}
	}
	return ""
}

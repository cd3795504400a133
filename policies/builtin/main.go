// Command builtin is the one WebAssembly module that holds the five built-in
// policies (category, targets, ratelimit, expressions, redact). The engine
// loads it for every `builtin:NAME` source and passes NAME in the module's
// settings as "policy"; this file dispatches on it.
//
// Why one module and not five: a Go wasm module carries the Go runtime, so
// each is ~2 MB of code that wazero compiles to ~11 MB of machine code. Five
// of them took 4.2 s to compile cold, 0.6 s from the cache and 130 MB of
// memory (docs/PERFORMANCE.md); one takes a fifth of each.
package main

import (
	"github.com/debugpy-guard/debugpy-guard/plugins/sdk"
	"github.com/debugpy-guard/debugpy-guard/policies/category"
	"github.com/debugpy-guard/debugpy-guard/policies/expressions"
	"github.com/debugpy-guard/debugpy-guard/policies/ratelimit"
	"github.com/debugpy-guard/debugpy-guard/policies/redact"
	"github.com/debugpy-guard/debugpy-guard/policies/targets"
)

type policy struct {
	validate func(sdk.Value) error
	prepare  func(sdk.Value) func(*sdk.Request) sdk.Decision
}

var policies = map[string]policy{
	"category":    {category.Validate, category.Prepare},
	"targets":     {targets.Validate, targets.Prepare},
	"ratelimit":   {ratelimit.Validate, ratelimit.Prepare},
	"expressions": {expressions.Validate, expressions.Prepare},
	"redact":      {redact.Validate, redact.Prepare},
}

type unknown string

func (u unknown) Error() string {
	return "no built-in policy " + string(u) + " (category, targets, ratelimit, expressions, redact)"
}

// prepare is the policy that the settings name, their settings read once:
// the SDK keeps it for the calls with the same settings (sdk.HandlePrepared;
// in a Go wasm guest reading them at each call was a good part of a
// batch's time: docs/PERFORMANCE.md).
func prepare(s sdk.Value) func(*sdk.Request) sdk.Decision {
	name := s.Get("policy").Str()
	p, ok := policies[name]
	if !ok {
		return func(*sdk.Request) sdk.Decision { return sdk.Deny(unknown(name).Error()) }
	}
	return p.prepare(s)
}

func init() {
	sdk.Validate(func(s sdk.Value) error {
		name := s.Get("policy").Str()
		p, ok := policies[name]
		if !ok {
			return unknown(name)
		}
		return p.validate(s) // each built-in refuses unknown settings
	})
	sdk.HandlePrepared(prepare)
}

func main() {}

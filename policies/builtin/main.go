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
	decide   func(*sdk.Request) sdk.Decision
}

var policies = map[string]policy{
	"category":    {category.Validate, category.Decide},
	"targets":     {targets.Validate, targets.Decide},
	"ratelimit":   {ratelimit.Validate, ratelimit.Decide},
	"expressions": {expressions.Validate, expressions.Decide},
	"redact":      {redact.Validate, redact.Decide},
}

type unknown string

func (u unknown) Error() string {
	return "no built-in policy " + string(u) + " (category, targets, ratelimit, expressions, redact)"
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
	sdk.Handle(func(r *sdk.Request) sdk.Decision {
		name := r.Settings().Get("policy").Str()
		p, ok := policies[name]
		if !ok {
			return sdk.Deny(unknown(name).Error())
		}
		return p.decide(r)
	})
}

func main() {}

package ratelimit

import (
	"testing"

	"github.com/debugpy-guard/debugpy-guard/plugins/abi"
	"github.com/debugpy-guard/debugpy-guard/policies/internal/policytest"
)

func TestDecide(t *testing.T) {
	two := `{"max":2,"window":"1h"}`
	policytest.Run(t, Decide, []policytest.Case{
		{Name: "first", Tool: "debugpy_threads", Settings: two, Want: "abstain"},
		{Name: "second", Tool: "debugpy_threads", Settings: two, Want: "abstain"},
		{Name: "third is over", Tool: "debugpy_threads", Settings: two, Want: "deny", Code: abi.RateLimited,
			Reason: "rate limit: 3 calls in 1h0m0s, at most 2; wait and retry"},
		{Name: "any tool counts", Tool: "debugpy_stack_trace", Settings: two, Want: "deny", Code: abi.RateLimited},
		{Name: "phase result is not counted", Phase: "result", Tool: "debugpy_threads", Result: `{}`, Settings: two, Want: "abstain"},
		{Name: "a bad window fails closed", Tool: "debugpy_threads", Settings: `{"window":"soon"}`, Want: "deny", Reason: `window "soon" is not a duration`},
		{Name: "a bad max fails closed", Tool: "debugpy_threads", Settings: `{"max":0}`, Want: "deny", Reason: "max must be a positive number"},
	})
}

func TestValidate(t *testing.T) {
	policytest.Validate(t, Validate, []policytest.Setting{
		{JSON: `{"max":10,"window":"30s"}`},
		{JSON: `{}`},
		{JSON: `{"max":1.5}`, Err: `setting "max" must be an integer`},
		{JSON: `{"max":"10"}`, Err: `must be an integer`},
		{JSON: `{"max":-1}`, Err: "max must be a positive number of calls"},
		{JSON: `{"window":"-1m"}`, Err: "is not a duration"},
		{JSON: `{"window":60}`, Err: `setting "window" must be a string`},
		{JSON: `{"windows":"1m"}`, Err: "unknown setting"},
	})
}

// Command denygo denies debugpy_evaluate and abstains on every other tool:
// a Go module on the SDK that does what plugins/testdata/wat/deny_evaluate.wat
// does, for the benchmarks that set a Go guest's cost in a round trip
// apart from what a built-in policy's code costs (cmd/debugpy-guard's
// BenchmarkDeniedVsIntercept).
package main

import "github.com/debugpy-guard/debugpy-guard/plugins/sdk"

func init() {
	sdk.Handle(func(r *sdk.Request) sdk.Decision {
		if r.Tool() == "debugpy_evaluate" {
			return sdk.Deny("evaluate is not allowed")
		}
		return sdk.Abstain()
	})
}

func main() {}

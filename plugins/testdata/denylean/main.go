//go:build wasip1

// Command denylean denies debugpy_evaluate and abstains on every other
// tool, as plugins/testdata/wat/deny_evaluate.wat does, in Go without the
// SDK: two host calls, a search of the request's bytes before
// "arguments", a response that is a constant. For the benchmarks that set
// a Go guest's own cost (its runtime) apart from the SDK's
// (cmd/debugpy-guard's BenchmarkDeniedVsIntercept, docs/PERFORMANCE.md).
package main

import (
	"bytes"
	"unsafe"
)

//go:wasmimport guard input
func hostInput(ptr unsafe.Pointer)

//go:wasmimport guard output
func hostOutput(ptr unsafe.Pointer, n int32)

//go:wasmexport guard_abi_v1
func guardABIv1() {}

var (
	in      = make([]byte, 64<<10)
	args    = []byte(`"arguments":`)
	tool    = []byte(`"tool":"debugpy_evaluate"`)
	deny    = []byte(`{"decision":"deny","reason":"evaluate is not allowed"}`)
	abstain = []byte(`{"decision":"abstain","reason":""}`)
	tooBig  = []byte(`request too large for this module`)
)

//go:wasmexport guard_evaluate
func guardEvaluate(n int32) int32 {
	if int(n) > len(in) {
		hostOutput(unsafe.Pointer(&tooBig[0]), int32(len(tooBig)))
		return 1
	}
	hostInput(unsafe.Pointer(&in[0]))
	req := in[:n]
	if end := bytes.Index(req, args); end >= 0 {
		req = req[:end]
	}
	out := abstain
	if bytes.Contains(req, tool) {
		out = deny
	}
	hostOutput(unsafe.Pointer(&out[0]), int32(len(out)))
	return 0
}

func main() {}

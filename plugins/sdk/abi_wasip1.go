//go:build wasip1

package sdk

import (
	"time"
	"unsafe"
)

//go:wasmimport guard input
func hostInput(ptr unsafe.Pointer)

//go:wasmimport guard output
func hostOutput(ptr unsafe.Pointer, n int32)

//go:wasmimport guard log
func hostLog(level int32, ptr unsafe.Pointer, n int32)

//go:wasmimport guard counter_add
func hostCounterAdd(ptr unsafe.Pointer, n int32, windowMS int64) int64

//go:wasmimport guard secret
func hostSecret(ptr unsafe.Pointer, n int32)

//go:wasmimport guard entry
func hostEntry(i int32)

//go:wasmexport guard_abi_v1
func guardABIv1() {}

//go:wasmexport guard_evaluate
func guardEvaluate(n int32) int32 { return run(n, Evaluate) }

//go:wasmexport guard_evaluate_batch
func guardEvaluateBatch(n int32) int32 {
	return run(n, func(in []byte) ([]byte, bool) {
		return EvaluateBatch(in, func(i int) { hostEntry(int32(i)) })
	})
}

//go:wasmexport guard_validate
func guardValidate(n int32) int32 { return run(n, ValidateSettings) }

// inbuf is reused across calls: a module instance runs one call at a time.
var inbuf []byte

func run(n int32, fn func([]byte) ([]byte, bool)) int32 {
	if cap(inbuf) < int(n)+1 { // +1: a valid pointer even when n is 0
		inbuf = make([]byte, n+1)
	}
	in := inbuf[:n+1]
	hostInput(unsafe.Pointer(&in[0]))
	out, failed := fn(in[:n])
	if len(out) > 0 {
		hostOutput(unsafe.Pointer(&out[0]), int32(len(out)))
	}
	if failed {
		return 1
	}
	return 0
}

// CounterAdd adds one to the sliding-window counter key (scoped by the host
// to this module and the MCP session) and returns the count in the window.
func CounterAdd(key string, window time.Duration) int64 {
	if key == "" {
		key = "_"
	}
	b := []byte(key)
	return hostCounterAdd(unsafe.Pointer(&b[0]), int32(len(b)), window.Milliseconds())
}

// Log writes to the host's log (level: 0 debug, 1 info, 2 warn, 3 error).
func Log(level int, msg string) {
	if msg == "" {
		return
	}
	b := []byte(msg)
	hostLog(int32(level), unsafe.Pointer(&b[0]), int32(len(b)))
}

// Secret hands the host a value seen under a secret's name: from then on
// the host masks it, in every form, in every result of every tool of the
// MCP session, after every module (plugins/ABI.md, guard.secret). Values
// shorter than 4 characters or longer than 4 KiB are not kept.
func Secret(value string) {
	if len(value) < 4 || len(value) > 4<<10 {
		return
	}
	b := []byte(value)
	hostSecret(unsafe.Pointer(&b[0]), int32(len(b)))
}

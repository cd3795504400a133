//go:build wasip1

package sdk

import (
	"runtime"
	"runtime/metrics"
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
func guardEvaluate(n int32) int32 {
	return run(n, func(in []byte) ([]byte, bool) { return evaluate(in, outbuf[:0], &lastReason) })
}

//go:wasmexport guard_evaluate_batch
func guardEvaluateBatch(n int32) int32 {
	return run(n, func(in []byte) ([]byte, bool) {
		return evaluateBatch(in, func(i int) { hostEntry(int32(i)) }, outbuf[:0])
	})
}

//go:wasmexport guard_validate
func guardValidate(n int32) int32 { return run(n, ValidateSettings) }

// inbuf and outbuf are reused across calls: a module instance runs one
// call at a time, and the host copies the response (guard.output) before
// the call returns.
var inbuf, outbuf []byte

// lastReason is the last call's reason and its JSON (encodedReason).
var lastReason encodedReason

// allocated reads how many bytes the Go heap has allocated, ever.
var allocated = []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}

var (
	collectedAt uint64 // what allocated read after the last collection run forced
	readAt      uint64 // what allocated read last
	sinceRead   int    // calls since then
	readEvery   = 1    // calls between two readings
	pages       int32  // the linear memory's size after the last call, in pages
)

// memoryPages is the linear memory's size in 64 KiB pages (memory.size:
// pages_wasip1_wasm.s).
func memoryPages() int32

const (
	// collectEvery is how much a guest allocates between the collections
	// that run forces.
	collectEvery = 8 << 20
	// The readings are spaced so that, at the rate the calls allocated
	// since the last one, at most readBudget is allocated between two,
	// and at most maxReadEvery calls go by. A reading costs a Go wasm
	// guest 3-4 µs, half of an empty handler's call (docs/PERFORMANCE.md).
	// A call after which the linear memory is larger (the heap took more,
	// as it does while a cycle waits) is always followed by one, and so is
	// a request of bigRequest bytes or more: what a call allocates grows
	// with what it reads.
	readBudget   = 1 << 20
	maxReadEvery = 16
	bigRequest   = 64 << 10
)

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
	outbuf = nil
	if cap(out) <= 64<<10 { // every response is a buffer of the SDK's; a large one goes
		outbuf = out[:0]
	}
	collect(n)
	if failed {
		return 1
	}
	return 0
}

// collect runs a collection between calls when the calls have allocated
// collectEvery since the last one. A Go guest's collector now and then
// starts a cycle that it ends only once the call's goroutine yields to its
// workers, which a call that computes never does; while the cycle waits,
// every allocation grows the heap (the redact policy on a 200 KB listing:
// the count of cycles stayed put while the heap grew 3.6 MB a call, to the
// module's 32 MiB in ~80 calls; TestGoGuestCollectsBetweenCalls).
// runtime.GC parks the goroutine: the workers run.
func collect(n int32) {
	sinceRead++
	p := memoryPages()
	grew := p > pages
	pages = p
	if sinceRead < readEvery && n < bigRequest && !grew {
		return
	}
	metrics.Read(allocated)
	a := allocated[0].Value.Uint64()
	perCall := (a - readAt) / uint64(sinceRead)
	readAt, sinceRead = a, 0
	if a-collectedAt >= collectEvery {
		runtime.GC()
		metrics.Read(allocated)
		collectedAt = allocated[0].Value.Uint64()
		readAt = collectedAt
	}
	readEvery = int(min(maxReadEvery, max(1, readBudget/max(perCall, 1))))
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
